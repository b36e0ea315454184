/** Stored spellings. The API maps them to the spec's request/response spellings at its edge. */
export const POLICY_STATUSES = [
  'POLICY_STATUS_ACTIVE',
  'POLICY_STATUS_INACTIVE',
  'POLICY_STATUS_SUSPENDED',
] as const;
export type PolicyStatus = (typeof POLICY_STATUSES)[number];

export const POLICY_TYPES = [
  'POLICY_TYPE_FAMILY_FLOATER',
  'POLICY_TYPE_INDIVIDUAL',
  'POLICY_TYPE_FLOATER_WITH_SI_RESTRICTION',
] as const;
export type PolicyType = (typeof POLICY_TYPES)[number];

export const COVERAGE_TYPES = [
  'COVERAGE_TYPE_E',
  'COVERAGE_TYPE_ES',
  'COVERAGE_TYPE_ESC',
  'COVERAGE_TYPE_ESCP',
  'COVERAGE_TYPE_P',
] as const;
export type CoverageType = (typeof COVERAGE_TYPES)[number];

export const GENDERS = ['MALE', 'FEMALE', 'OTHER'] as const;
export type Gender = (typeof GENDERS)[number];

export const EMPLOYEE_STATUSES = ['ACTIVE', 'INACTIVE', 'INACTIVE_ONGOING_CLAIM'] as const;
export type EmployeeStatus = (typeof EMPLOYEE_STATUSES)[number];

export const RELATIONSHIPS = ['SPOUSE', 'CHILD', 'PARENT', 'PARENT_IN_LAW'] as const;
export type Relationship = (typeof RELATIONSHIPS)[number];

/** D16: a leaver's DELETIONs are created at once or proposed for the client to confirm. */
export const EXIT_MODES = ['automatic', 'proposed'] as const;
export type ExitMode = (typeof EXIT_MODES)[number];

export const MEMBER_STATUSES = ['active', 'inactive', 'suspended'] as const;
export type MemberStatus = (typeof MEMBER_STATUSES)[number];

export const ENDORSEMENT_TYPES = [
  'ENDORSEMENT_TYPE_ADDITION',
  'ENDORSEMENT_TYPE_DELETION',
  'ENDORSEMENT_TYPE_MODIFICATION',
  /** D17: a deleted member's cover restored without a gap, within the reinstatement window. */
  'ENDORSEMENT_TYPE_REINSTATEMENT',
] as const;
export type EndorsementType = (typeof ENDORSEMENT_TYPES)[number];
/** The types a census row creates (D16): a REINSTATEMENT is asked for one by one, never by census. */
export const CENSUS_ENDORSEMENT_TYPES = [
  'ENDORSEMENT_TYPE_ADDITION',
  'ENDORSEMENT_TYPE_DELETION',
  'ENDORSEMENT_TYPE_MODIFICATION',
] as const satisfies readonly EndorsementType[];
export type CensusEndorsementType = (typeof CENSUS_ENDORSEMENT_TYPES)[number];

export const ENDORSEMENT_STATUSES = [
  'ENDORSEMENT_STATUS_PENDING',
  'ENDORSEMENT_STATUS_SENT_TO_INSURER',
  'ENDORSEMENT_STATUS_APPROVED',
  'ENDORSEMENT_STATUS_REJECTED',
  'ENDORSEMENT_STATUS_CANCELLED',
] as const;
export type EndorsementStatus = (typeof ENDORSEMENT_STATUSES)[number];
export const OPEN_ENDORSEMENT_STATUSES: readonly EndorsementStatus[] = [
  'ENDORSEMENT_STATUS_PENDING',
  'ENDORSEMENT_STATUS_SENT_TO_INSURER',
];

export const GRANT_STATUSES = [
  'GRANT_STATUS_PENDING',
  'GRANT_STATUS_IN_PROGRESS',
  'GRANT_STATUS_COMPLETED',
  'GRANT_STATUS_PARTIALLY_COMPLETED',
  'GRANT_STATUS_FAILED',
] as const;
export type GrantStatus = (typeof GRANT_STATUSES)[number];

export const GRANT_ITEM_OUTCOMES = ['ENDORSEMENT', 'SKIPPED', 'FAILED'] as const;
export type GrantItemOutcome = (typeof GRANT_ITEM_OUTCOMES)[number];

/** D8, D14: how endorsements reach an insurer (adapters/). */
export const INSURER_ADAPTERS = ['simulated', 'manual', 'file', 'api'] as const;
export type InsurerAdapterName = (typeof INSURER_ADAPTERS)[number];
