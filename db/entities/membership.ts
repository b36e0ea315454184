import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import {
  ENDORSEMENT_STATUSES,
  ENDORSEMENT_TYPES,
  GRANT_ITEM_OUTCOMES,
  GRANT_STATUSES,
  MEMBER_STATUSES,
} from '../../domain/enums.js';
import { CensusBatchSchema } from './census.js';
import { clientRef } from './client.js';
import { createdAt, money, ref, text, textEnum, updatedAt } from './columns.js';
import { DependentSchema, EmployeeSchema } from './employee.js';
import { PolicySchema } from './policy.js';
import { tenantFilter } from './tenant.js';

const policyRef = () => ref(PolicySchema, 'policy_id');
const employeeRef = () => ref(EmployeeSchema, 'employee_id');

export const GrantSchema = defineEntity({
  name: 'Grant',
  tableName: 'grants',
  filters: tenantFilter,
  properties: {
    id: text().primary(),
    clientId: clientRef(),
    employeeId: employeeRef(),
    policyId: policyRef().nullable(),
    startDate: p.date(),
    endDate: p.date(),
    status: textEnum(GRANT_STATUSES),
    workflowStartedAt: p.datetime().nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});
export type Grant = InferEntity<typeof GrantSchema>;

export const EndorsementSchema = defineEntity({
  name: 'Endorsement',
  tableName: 'endorsements',
  filters: tenantFilter,
  indexes: [
    // D7: at most one open endorsement per employee and policy, enforced by the database.
    {
      name: 'endorsements_one_open',
      expression:
        'create unique index endorsements_one_open on endorsements (client_id, employee_id, policy_id) ' +
        "where status in ('ENDORSEMENT_STATUS_PENDING', 'ENDORSEMENT_STATUS_SENT_TO_INSURER')",
    },
    {
      name: 'endorsements_unstarted',
      expression:
        'create index endorsements_unstarted on endorsements (created_at) where workflow_started_at is null',
    },
    {
      name: 'endorsements_grant',
      expression: 'create index endorsements_grant on endorsements (grant_id) where grant_id is not null',
    },
    // D16: a census batch's endorsements (an exit row's DELETIONs are found by their batch).
    {
      name: 'endorsements_batch',
      expression: 'create index endorsements_batch on endorsements (batch_id) where batch_id is not null',
    },
    // D14: a file insurer's endorsements waiting for a cut-off, and those a cut-off claimed.
    {
      name: 'endorsements_awaiting_cut_off',
      expression:
        'create index endorsements_awaiting_cut_off on endorsements (cut_off_queued_at) ' +
        'where cut_off_queued_at is not null and cut_off_at is null',
    },
    {
      name: 'endorsements_cut_off',
      expression:
        'create index endorsements_cut_off on endorsements (cut_off_at) where cut_off_at is not null',
    },
    // D7 + D14: cancelled after delivery, waiting for the cut-off whose file withdraws it; claimed.
    {
      name: 'endorsements_awaiting_withdrawal',
      expression:
        'create index endorsements_awaiting_withdrawal on endorsements (withdrawal_queued_at) ' +
        'where withdrawal_queued_at is not null and withdrawal_cut_off_at is null',
    },
    {
      name: 'endorsements_withdrawal_cut_off',
      expression:
        'create index endorsements_withdrawal_cut_off on endorsements (withdrawal_cut_off_at) ' +
        'where withdrawal_cut_off_at is not null',
    },
    // D14: what waits for insurers, oldest first (GET /v1/insurer/endorsements).
    {
      name: 'endorsements_insurer_backlog',
      expression:
        'create index endorsements_insurer_backlog on endorsements (sent_to_insurer_at, id) ' +
        "where status = 'ENDORSEMENT_STATUS_SENT_TO_INSURER'",
    },
    // The CD account: endorsements waiting for funds, oldest first per policy.
    {
      name: 'endorsements_awaiting_funds',
      expression:
        'create index endorsements_awaiting_funds on endorsements (policy_id, awaiting_funds_since, id) ' +
        'where awaiting_funds_since is not null',
    },
  ],
  properties: {
    id: text().primary(),
    clientId: clientRef(),
    policyId: policyRef(),
    employeeId: employeeRef(),
    grantId: ref(GrantSchema, 'grant_id').nullable(),
    /** D16: a dependent joining a covered employee: the one person the endorsement covers. */
    dependentId: ref(DependentSchema, 'dependent_id').nullable(),
    /** D16: the census batch whose row made it (migration 0023), for its workflow's BatchId. */
    batchId: ref(CensusBatchSchema, 'batch_id').nullable(),
    type: textEnum(ENDORSEMENT_TYPES),
    status: textEnum(ENDORSEMENT_STATUSES),
    coverageStartDate: p.date(),
    coverageEndDate: p.date(),
    premiumImpact: money(),
    sumInsured: money(),
    rejectionReason: text().nullable(),
    insurerMemberId: text().nullable(),
    uhid: text().nullable(),
    /** Set once the workflow start is confirmed; the reconciler starts any row left without one. */
    workflowStartedAt: p.datetime().nullable(),
    decidedAt: p.datetime().nullable(),
    /** D14: reviewed for a file insurer, waiting for its cut-off (set by the workflow). */
    cutOffQueuedAt: p.datetime().nullable(),
    /** D14: the cut-off whose file carries it (its claim; the file's name derives from it). */
    cutOffAt: p.datetime().nullable(),
    /** Cancelled after its file insurer received it: waiting for the cut-off that withdraws it. */
    withdrawalQueuedAt: p.datetime().nullable(),
    /** The cut-off whose file carries the withdrawal row (its claim). */
    withdrawalCutOffAt: p.datetime().nullable(),
    /** When that file was delivered. */
    withdrawalSentAt: p.datetime().nullable(),
    /** D14: when it went SENT_TO_INSURER (its insurer's SLA runs from then). */
    sentToInsurerAt: p.datetime().nullable(),
    /** The CD account: reviewed, waiting until the policy's available balance covers it. */
    awaitingFundsSince: p.datetime().nullable(),
    /** The CD account: its hold is placed (set by migration 0033's trigger on the hold's ledger entry). */
    cdHolding: p.boolean().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});
export type Endorsement = InferEntity<typeof EndorsementSchema>;

/** What a grant did on one policy: an endorsement, or skipped/failed with a reason. */
export const GrantItemSchema = defineEntity({
  name: 'GrantItem',
  tableName: 'grant_items',
  filters: tenantFilter,
  primaryKeys: ['grantId', 'policyId'],
  properties: {
    grantId: ref(GrantSchema, 'grant_id').primary(),
    policyId: policyRef().primary(),
    clientId: clientRef(),
    outcome: textEnum(GRANT_ITEM_OUTCOMES),
    endorsementId: ref(EndorsementSchema, 'endorsement_id').nullable(),
    detail: text().nullable(),
    createdAt: createdAt(),
  },
});
export type GrantItem = InferEntity<typeof GrantItemSchema>;

/**
 * One covered person on a policy. `employeeNameKey` (the employee name in lower case) and
 * `memberRank` are the keyset sort key (D5: employee name ignoring case, then the employee row before
 * dependents); the employee update path keeps the name in step.
 */
export const PolicyMemberSchema = defineEntity({
  name: 'PolicyMember',
  tableName: 'policy_members',
  filters: tenantFilter,
  indexes: [
    {
      name: 'policy_members_page_keyed',
      expression:
        'create index policy_members_page_keyed on policy_members ' +
        '(client_id, policy_id, employee_name_key, employee_id, member_rank, id)',
    },
    { name: 'policy_members_employee', properties: ['clientId', 'employeeId'] },
    // The members list's total_count as an index-only scan (migration 0032).
    { name: 'policy_members_count', properties: ['clientId', 'policyId'] },
    // One active row per covered person on a policy.
    {
      name: 'policy_members_one_active',
      expression:
        'create unique index policy_members_one_active on policy_members ' +
        "(policy_id, employee_id, coalesce(dependent_id, '')) where status = 'active'",
    },
    // An endorsement enrols each person once, however often its activity is retried.
    {
      name: 'policy_members_by_endorsement',
      expression:
        'create unique index policy_members_by_endorsement on policy_members ' +
        "(endorsement_id, coalesce(dependent_id, '')) where endorsement_id is not null",
    },
  ],
  properties: {
    id: text().primary(),
    clientId: clientRef(),
    policyId: policyRef(),
    employeeId: employeeRef(),
    dependentId: ref(DependentSchema, 'dependent_id').nullable(),
    endorsementId: ref(EndorsementSchema, 'endorsement_id').nullable(),
    insurerMemberId: text().nullable(),
    uhid: text().nullable(),
    coverageStartDate: p.date(),
    coverageEndDate: p.date(),
    premiumAmount: money().nullable(),
    sumInsured: money().nullable(),
    remainingSumInsured: money().nullable(),
    status: textEnum(MEMBER_STATUSES),
    employeeName: text(),
    // The sort key's first part, stored (migration 0009): a plain column keeps the keyset an index
    // range under row-level security, where an expression like lower() may not drive the index.
    employeeNameKey: text().generated('(lower(employee_name)) stored').nullable(),
    memberRank: p.smallint().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});
export type PolicyMember = InferEntity<typeof PolicyMemberSchema>;
