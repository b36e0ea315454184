import type { EndorsementRefused } from '../endorsements/endorsement.js';
import type { EndorsementStatus, GrantItemOutcome, GrantStatus } from '../enums.js';
import { maxDate, minDate } from '../dates.js';

/** A grant request after its shape was checked (api/schemas/grants.ts): start_date before end_date. */
export interface GrantRequest {
  employeeId: string;
  policyId?: string | undefined;
  startDate: string;
  endDate: string;
}

/** Why D9 refuses a grant synchronously; the API maps each code to its 404. */
export type GrantRefusalCode = 'EMPLOYEE_NOT_FOUND' | 'POLICY_NOT_FOUND';

export class GrantRefused extends Error {
  constructor(
    readonly code: GrantRefusalCode,
    readonly detail = '',
  ) {
    super(`${code}${detail ? `: ${detail}` : ''}`);
  }
}

/** The stored row the workflow start needs: ids only. */
export interface CreatedGrant {
  id: string;
  clientId: string;
  employeeId: string;
}

export interface Period {
  startDate: string;
  endDate: string;
}

/**
 * A policy period overlaps a grant period when the clipped period is at least one day long
 * (start strictly before end, as an endorsement requires).
 */
export const overlaps = (policy: Period, grant: Period): boolean =>
  policy.startDate < grant.endDate && policy.endDate > grant.startDate;

/** D9: the grant's dates clipped to the policy period. */
export function clipToPolicy(grant: Period, policy: Period): Period {
  return {
    startDate: maxDate(grant.startDate, policy.startDate),
    endDate: minDate(grant.endDate, policy.endDate),
  };
}

/** One candidate policy read for a grant request; all null: the employee, but no candidate. */
export interface GrantCandidate {
  policy_id: string | null;
  start_date: string | null;
  end_date: string | null;
}

/**
 * D9's synchronous checks against the candidates read for the request (no rows: no such
 * employee): with policy_id that policy, which must overlap the grant period; without, at least
 * one overlapping ACTIVE policy. Throws GrantRefused.
 */
export function checkGrantRequest(rows: readonly GrantCandidate[], req: GrantRequest): void {
  if (rows.length === 0) throw new GrantRefused('EMPLOYEE_NOT_FOUND');
  const found = rows.filter((r) => r.policy_id !== null);
  if (!req.policyId) {
    if (found.length === 0) {
      throw new GrantRefused(
        'POLICY_NOT_FOUND',
        `no active policy overlaps the period ${req.startDate} to ${req.endDate}`,
      );
    }
    return;
  }
  const policy = found[0];
  if (!policy) throw new GrantRefused('POLICY_NOT_FOUND');
  if (!overlaps({ startDate: policy.start_date!, endDate: policy.end_date! }, req)) {
    throw new GrantRefused(
      'POLICY_NOT_FOUND',
      `the policy period ${policy.start_date} to ${policy.end_date} does not overlap the period ${req.startDate} to ${req.endDate}`,
    );
  }
}

/**
 * How an endorsement the grant could not create is recorded: an employee already on the policy, or
 * an endorsement already open for them on it, is SKIPPED (nothing to do here); anything else FAILED.
 */
export function refusalOutcome(err: EndorsementRefused): { outcome: GrantItemOutcome; detail: string } {
  switch (err.code) {
    case 'ALREADY_COVERED':
    case 'IN_PROGRESS':
      return { outcome: 'SKIPPED', detail: err.detail };
    case 'POLICY_NOT_FOUND':
      return { outcome: 'FAILED', detail: 'the policy is no longer active' };
    case 'EMPLOYEE_NOT_FOUND':
      return { outcome: 'FAILED', detail: 'the employee no longer exists' };
    default:
      return { outcome: 'FAILED', detail: err.detail || err.code };
  }
}

export interface SettledItem {
  outcome: GrantItemOutcome;
  /** The endorsement's status for an ENDORSEMENT item. */
  endorsementStatus: EndorsementStatus | null;
}

/**
 * The grant's final status once every endorsement is decided. Skipped policies are neutral (the
 * employee is covered, or being covered, by another request). COMPLETED: nothing failed, was
 * rejected or cancelled; PARTIALLY_COMPLETED: something did, and at least one was approved;
 * FAILED: nothing approved and not everything skipped, or no target policy at all.
 */
export function grantOutcome(items: readonly SettledItem[]): GrantStatus {
  if (items.length === 0) return 'GRANT_STATUS_FAILED';
  const approved = items.filter((i) => i.endorsementStatus === 'ENDORSEMENT_STATUS_APPROVED').length;
  const unsuccessful = items.filter(
    (i) =>
      i.outcome === 'FAILED' ||
      (i.outcome === 'ENDORSEMENT' && i.endorsementStatus !== 'ENDORSEMENT_STATUS_APPROVED'),
  ).length;
  if (unsuccessful === 0) return 'GRANT_STATUS_COMPLETED';
  return approved > 0 ? 'GRANT_STATUS_PARTIALLY_COMPLETED' : 'GRANT_STATUS_FAILED';
}

export const FINAL_GRANT_STATUSES: readonly GrantStatus[] = [
  'GRANT_STATUS_COMPLETED',
  'GRANT_STATUS_PARTIALLY_COMPLETED',
  'GRANT_STATUS_FAILED',
];
