import { coveredRelationships } from '../endorsements/endorsement.js';
import {
  RELATIONSHIPS,
  type CoverageType,
  type EndorsementType,
  type Gender,
  type InsurerAdapterName,
  type Relationship,
} from '../enums.js';
import { storedAdapterConfig, type InsurerAdapterConfig } from './adapter-settings.js';

export { INSURER_REFUSED, INSURER_UNAVAILABLE } from './failures.js';

/** One person the endorsement covers, as the insurer needs them: the employee (`SELF`) or a dependent. */
export interface SubmittedMember {
  relationship: 'SELF' | Relationship;
  name: string;
  dateOfBirth: string;
  gender: Gender;
}

/**
 * What an adapter sends to an insurer, with the insurer's adapter and its settings. Built by the
 * submit activity from PostgreSQL; it never travels through Temporal payloads (nor into logs), which
 * is why it may carry the members' personal details.
 */
export type InsurerSubmission = InsurerAdapterConfig & {
  endorsementId: string;
  clientId: string;
  policyId: string;
  policyNumber: string;
  insurerId: string;
  insurerCode: string;
  employeeId: string;
  /** The client's own employee identifier. */
  employeeCode: string;
  type: EndorsementType;
  coverageStartDate: string;
  coverageEndDate: string;
  sumInsured: string;
  premiumImpact: string;
  /**
   * The employee first (not for a dependent's own endorsement, D16, which lists that person only),
   * then the dependents the policy's coverage type covers (as enrolment does),
   * spouse, children, parents, parents-in-law, each eldest first: the same order on every retry.
   */
  members: SubmittedMember[];
};

/** The stored row a submission is built from (data/endorsements/endorsements.ts readInsurerSubmission). */
export type SubmissionRow = Omit<InsurerSubmission, 'adapter' | 'adapterSettings' | 'members'> & {
  adapter: InsurerAdapterName;
  adapterSettings: unknown;
  coverageType: CoverageType;
  employee: Omit<SubmittedMember, 'relationship'>;
  dependents: SubmittedMember[];
  /** D16: a dependent's own endorsement: the insurer gets that person's row only. */
  dependentOnly?: boolean;
};

const rank = (r: SubmittedMember['relationship']) => (RELATIONSHIPS as readonly string[]).indexOf(r);
const byRelationshipThenAge = (a: SubmittedMember, b: SubmittedMember) =>
  rank(a.relationship) - rank(b.relationship) ||
  a.dateOfBirth.localeCompare(b.dateOfBirth) ||
  a.name.localeCompare(b.name);

/** The submission of a stored row: settings read through their adapter's schema, members by coverage. */
export function insurerSubmission(row: SubmissionRow): InsurerSubmission {
  const { adapter, adapterSettings, coverageType, employee, dependents, dependentOnly, ...rest } = row;
  const covered = new Set<string>(coveredRelationships(coverageType));
  return {
    ...rest,
    ...storedAdapterConfig(row.insurerCode, adapter, adapterSettings),
    members: [
      ...(dependentOnly ? [] : [{ relationship: 'SELF' as const, ...employee }]),
      ...dependents.filter((d) => covered.has(d.relationship)).sort(byRelationshipThenAge),
    ],
  };
}
