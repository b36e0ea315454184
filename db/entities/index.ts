import { CensusBatchRowSchema, CensusBatchSchema } from './census.js';
import { ClientSchema, TokenFailureSchema, TokenIssueSchema } from './client.js';
import { DependentSchema, EmployeeSchema, UserSchema } from './employee.js';
import { InsurerPrincipalSchema, InsurerTokenIssueSchema } from './insurer-principal.js';
import { InsurerResponseFileSchema } from './insurer-response-file.js';
import { CdLedgerEntrySchema } from './ledger.js';
import { EndorsementSchema, GrantItemSchema, GrantSchema, PolicyMemberSchema } from './membership.js';
import { PolicySchema, PolicyTallyChangeSchema } from './policy.js';
import { AuditEventSchema, IdempotencyRecordSchema } from './records.js';
import { PolicyRenewalSchema } from './renewal.js';
import {
  CdStatementDifferenceSchema,
  RosterDifferenceSchema,
  RosterReconciliationSchema,
  RosterRowSchema,
} from './roster.js';
import { InsurerSchema, ProductSchema, TpaSchema } from './reference.js';
import {
  WebhookDeliveryAttemptSchema,
  WebhookDeliverySchema,
  WebhookEndpointSchema,
  WebhookEventSchema,
} from './webhooks.js';

export * from './census.js';
export * from './client.js';
export * from './employee.js';
export * from './insurer-principal.js';
export * from './insurer-response-file.js';
export * from './ledger.js';
export * from './membership.js';
export * from './policy.js';
export * from './records.js';
export * from './reference.js';
export * from './renewal.js';
export * from './roster.js';
export * from './tenant.js';
export * from './webhooks.js';

/** Every table the migrations create has its entity here (test/db/schema-diff.test.ts checks both agree). */
export const entities = [
  ClientSchema,
  TokenIssueSchema,
  TokenFailureSchema,
  InsurerSchema,
  InsurerPrincipalSchema,
  InsurerTokenIssueSchema,
  InsurerResponseFileSchema,
  TpaSchema,
  ProductSchema,
  PolicySchema,
  PolicyRenewalSchema,
  CdLedgerEntrySchema,
  PolicyTallyChangeSchema,
  UserSchema,
  EmployeeSchema,
  DependentSchema,
  PolicyMemberSchema,
  EndorsementSchema,
  GrantSchema,
  GrantItemSchema,
  IdempotencyRecordSchema,
  AuditEventSchema,
  WebhookEndpointSchema,
  WebhookEventSchema,
  WebhookDeliverySchema,
  WebhookDeliveryAttemptSchema,
  RosterReconciliationSchema,
  RosterRowSchema,
  RosterDifferenceSchema,
  CensusBatchSchema,
  CensusBatchRowSchema,
  CdStatementDifferenceSchema,
];
