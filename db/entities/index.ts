import { ClientSchema, TokenIssueSchema } from './client.js';
import { DependentSchema, EmployeeSchema, UserSchema } from './employee.js';
import { EndorsementSchema, GrantItemSchema, GrantSchema, PolicyMemberSchema } from './membership.js';
import { CdLedgerEntrySchema, PolicySchema } from './policy.js';
import { AuditEventSchema, IdempotencyRecordSchema } from './records.js';
import { InsurerSchema, ProductSchema, TpaSchema } from './reference.js';

export * from './client.js';
export * from './employee.js';
export * from './membership.js';
export * from './policy.js';
export * from './records.js';
export * from './reference.js';
export * from './tenant.js';

export const entities = [
  ClientSchema,
  TokenIssueSchema,
  InsurerSchema,
  TpaSchema,
  ProductSchema,
  PolicySchema,
  CdLedgerEntrySchema,
  UserSchema,
  EmployeeSchema,
  DependentSchema,
  PolicyMemberSchema,
  EndorsementSchema,
  GrantSchema,
  GrantItemSchema,
  IdempotencyRecordSchema,
  AuditEventSchema,
];
