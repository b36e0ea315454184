import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import {
  ENDORSEMENT_STATUSES,
  ENDORSEMENT_TYPES,
  GRANT_ITEM_OUTCOMES,
  GRANT_STATUSES,
  MEMBER_STATUSES,
} from '../../domain/enums.js';
import { tenantFilter } from './tenant.js';

/**
 * One covered person on a policy. `employeeName` and `memberRank` are the keyset sort key (D5:
 * employee name, then the employee row before dependents); the employee update path keeps the name in step.
 */
export const PolicyMemberSchema = defineEntity({
  name: 'PolicyMember',
  tableName: 'policy_members',
  filters: tenantFilter,
  properties: {
    id: p.string().primary(),
    clientId: p.string(),
    policyId: p.string(),
    employeeId: p.string(),
    dependentId: p.string().nullable(),
    endorsementId: p.string().nullable(),
    insurerMemberId: p.string().nullable(),
    uhid: p.string().nullable(),
    coverageStartDate: p.date(),
    coverageEndDate: p.date(),
    premiumAmount: p.decimal('string').precision(14).scale(2).nullable(),
    sumInsured: p.decimal('string').precision(14).scale(2).nullable(),
    remainingSumInsured: p.decimal('string').precision(14).scale(2).nullable(),
    status: p.enum([...MEMBER_STATUSES]),
    employeeName: p.string(),
    memberRank: p.smallint().default(0),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type PolicyMember = InferEntity<typeof PolicyMemberSchema>;

export const EndorsementSchema = defineEntity({
  name: 'Endorsement',
  tableName: 'endorsements',
  filters: tenantFilter,
  properties: {
    id: p.string().primary(),
    clientId: p.string(),
    policyId: p.string(),
    employeeId: p.string(),
    grantId: p.string().nullable(),
    type: p.enum([...ENDORSEMENT_TYPES]),
    status: p.enum([...ENDORSEMENT_STATUSES]),
    coverageStartDate: p.date(),
    coverageEndDate: p.date(),
    premiumImpact: p.decimal('string').precision(14).scale(2),
    sumInsured: p.decimal('string').precision(14).scale(2),
    rejectionReason: p.text().nullable(),
    insurerMemberId: p.string().nullable(),
    uhid: p.string().nullable(),
    /** Set once the workflow start is confirmed; the reconciler starts any row left without one. */
    workflowStartedAt: p.datetime().nullable(),
    decidedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type Endorsement = InferEntity<typeof EndorsementSchema>;

export const GrantSchema = defineEntity({
  name: 'Grant',
  tableName: 'grants',
  filters: tenantFilter,
  properties: {
    id: p.string().primary(),
    clientId: p.string(),
    employeeId: p.string(),
    policyId: p.string().nullable(),
    startDate: p.date(),
    endDate: p.date(),
    status: p.enum([...GRANT_STATUSES]),
    workflowStartedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type Grant = InferEntity<typeof GrantSchema>;

/** What a grant did on one policy: an endorsement, or skipped/failed with a reason. */
export const GrantItemSchema = defineEntity({
  name: 'GrantItem',
  tableName: 'grant_items',
  filters: tenantFilter,
  primaryKeys: ['grantId', 'policyId'],
  properties: {
    grantId: p.string().primary(),
    policyId: p.string().primary(),
    clientId: p.string(),
    outcome: p.enum([...GRANT_ITEM_OUTCOMES]),
    endorsementId: p.string().nullable(),
    detail: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type GrantItem = InferEntity<typeof GrantItemSchema>;
