import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** D7: what operators filter on in the Web UI. Registered on the namespace at start. */
export const EndorsementStatus = defineSearchAttributeKey('EndorsementStatus', SearchAttributeType.KEYWORD);
export const EndorsementType = defineSearchAttributeKey('EndorsementType', SearchAttributeType.KEYWORD);
export const ClientId = defineSearchAttributeKey('ClientId', SearchAttributeType.KEYWORD);
export const PolicyId = defineSearchAttributeKey('PolicyId', SearchAttributeType.KEYWORD);
export const EmployeeId = defineSearchAttributeKey('EmployeeId', SearchAttributeType.KEYWORD);
export const EndorsementStuck = defineSearchAttributeKey('EndorsementStuck', SearchAttributeType.BOOL);
/** D14: past the insurer's SLA without a decision (set once, kept: the breach happened). */
export const EndorsementSlaBreached = defineSearchAttributeKey(
  'EndorsementSlaBreached',
  SearchAttributeType.BOOL,
);
/** D14: an insurer's backlog by age: who has it, since when, due when. */
export const InsurerId = defineSearchAttributeKey('InsurerId', SearchAttributeType.KEYWORD);
export const SubmittedAt = defineSearchAttributeKey('SubmittedAt', SearchAttributeType.DATETIME);
export const SlaDueAt = defineSearchAttributeKey('SlaDueAt', SearchAttributeType.DATETIME);
/** The CD account: reviewed, waiting in PENDING until the policy's available balance covers it. */
export const AwaitingFunds = defineSearchAttributeKey('AwaitingFunds', SearchAttributeType.BOOL);
export const GrantStatus = defineSearchAttributeKey('GrantStatus', SearchAttributeType.KEYWORD);
/** D16: the census batch a workflow belongs to (the batch's own and each row's endorsement). */
export const BatchId = defineSearchAttributeKey('BatchId', SearchAttributeType.KEYWORD);

export const SEARCH_ATTRIBUTES = [
  EndorsementStatus,
  EndorsementType,
  ClientId,
  PolicyId,
  EmployeeId,
  EndorsementStuck,
  EndorsementSlaBreached,
  InsurerId,
  SubmittedAt,
  SlaDueAt,
  AwaitingFunds,
  GrantStatus,
  BatchId,
] as const;
