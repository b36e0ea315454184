import { childAgesOut, eligibilityRules, type EligibilityRules } from './eligibility.js';

/**
 * D16's age-out: a covered child over the policy's child age limit on the policy's end date (its
 * renewal) is removed then, by a DELETION ending its cover on that date. The daily pass looks this
 * many days ahead of the end date, so the insurer hears of it before the renewal while the family's
 * other endorsements are not held up (one open endorsement per employee and policy) for months.
 */
export const AGE_OUT_NOTICE_DAYS = 30;

/** A covered child on an ACTIVE policy ending within the notice period, with no DELETION yet. */
export interface AgeOutCandidate {
  clientId: string;
  policyId: string;
  employeeId: string;
  dependentId: string;
  dateOfBirth: string;
  /** The child's own cover start (the DELETION's coverage_start_date). */
  memberStart: string;
  /** The policy's end date: the renewal at which the child leaves. */
  policyEnd: string;
  /** The policy's overrides of D16's defaults. */
  eligibility: Partial<EligibilityRules>;
}

/** The child is over the policy's age limit at its renewal. Pure. */
export const agesOutAtRenewal = (c: AgeOutCandidate): boolean =>
  childAgesOut(eligibilityRules(c.eligibility), c.dateOfBirth, c.policyEnd);
