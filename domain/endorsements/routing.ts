import type { EndorsementType, PolicyStatus } from '../enums.js';

/** What routing needs to know about one of the client's policies. */
export interface RoutablePolicy {
  id: string;
  policyNumber: string;
  status: PolicyStatus;
  startDate: string;
  endDate: string;
  /** The employee has an active member row (their own, not a dependent's) on this policy. */
  employeeActive: boolean;
}

export type RoutingResult =
  | { ok: true; policyId: string }
  | { ok: false; reason: 'NO_POLICY' }
  | { ok: false; reason: 'SEVERAL_POLICIES'; policyIds: string[] };

/**
 * D7 routing when policy_id is omitted (pure; the caller loads the client's policies).
 * ADDITION: the ACTIVE policy whose period holds coverage_start_date and on which the employee is
 * not active, earliest start_date first, then policy_number. DELETION (and MODIFICATION, which
 * also needs an existing cover): the one ACTIVE policy the employee is active on; several is
 * ambiguous, none is no policy.
 */
export function routeEndorsement(
  type: EndorsementType,
  coverageStartDate: string,
  policies: readonly RoutablePolicy[],
): RoutingResult {
  const active = policies.filter((p) => p.status === 'POLICY_STATUS_ACTIVE');
  if (type === 'ENDORSEMENT_TYPE_ADDITION') {
    const candidates = active
      .filter((p) => !p.employeeActive && p.startDate <= coverageStartDate && coverageStartDate <= p.endDate)
      .sort(
        (a, b) =>
          compare(a.startDate, b.startDate) || compare(a.policyNumber, b.policyNumber) || compare(a.id, b.id),
      );
    return candidates[0] ? { ok: true, policyId: candidates[0].id } : { ok: false, reason: 'NO_POLICY' };
  }
  const covered = active.filter((p) => p.employeeActive);
  if (covered.length === 1) return { ok: true, policyId: covered[0]!.id };
  if (covered.length === 0) return { ok: false, reason: 'NO_POLICY' };
  return { ok: false, reason: 'SEVERAL_POLICIES', policyIds: covered.map((p) => p.id).sort() };
}

/** Plain code-unit order so the choice never depends on the process locale. */
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
