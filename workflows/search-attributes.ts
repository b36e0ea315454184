import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** D7: what operators filter on in the Web UI. Registered on the namespace at start. */
export const EndorsementStatus = defineSearchAttributeKey('EndorsementStatus', SearchAttributeType.KEYWORD);
export const EndorsementType = defineSearchAttributeKey('EndorsementType', SearchAttributeType.KEYWORD);
export const ClientId = defineSearchAttributeKey('ClientId', SearchAttributeType.KEYWORD);
export const PolicyId = defineSearchAttributeKey('PolicyId', SearchAttributeType.KEYWORD);
export const EmployeeId = defineSearchAttributeKey('EmployeeId', SearchAttributeType.KEYWORD);
export const EndorsementStuck = defineSearchAttributeKey('EndorsementStuck', SearchAttributeType.BOOL);
export const GrantStatus = defineSearchAttributeKey('GrantStatus', SearchAttributeType.KEYWORD);

export const SEARCH_ATTRIBUTES = [
  EndorsementStatus,
  EndorsementType,
  ClientId,
  PolicyId,
  EmployeeId,
  EndorsementStuck,
  GrantStatus,
] as const;
