import { addDays } from '../dates.js';
import {
  endorsementInProgress,
  EndorsementRefused,
  type EndorsementDecision,
  type EndorsementRequest,
} from './endorsement.js';
import type { PolicyStatus } from '../enums.js';
import { additionPremium, findSlab, inclusiveDays, normaliseAmount, type Slab } from '../premium.js';

/**
 * D17 reinstatement, pure: a REINSTATEMENT restores the cover an approved DELETION ended, without a
 * gap, when it is asked for within the window after that cover's last day.
 *
 * Dates (India's calendar, D13): the DELETION's cover ended at the end of its last covered day E.
 * The window opens on E + 1 and closes after E + windowDays (default 30: a cover ended on
 * 2026-10-15 can be reinstated from 2026-10-16 to 2026-11-14, both included). The restored period
 * runs from E + 1 to the cover's end before the DELETION, so the member's rows keep their original
 * start date and UHID and show no gap.
 *
 * Price ("priced for the gap days"): D7's pro-rata formula for the restored days, E + 1 to the
 * original end, both included, at the member's slab: exactly the refund the DELETION credited for
 * the same days (deletionRefund counts the days after E up to that end), reversed. The CD ledger
 * debits it on approval with an entry keyed by the reinstatement's id, as any endorsement.
 */

export const DEFAULT_REINSTATEMENT_WINDOW_DAYS = 30;

/**
 * What the read before a reinstatement brings (snake_case as stored): the employee, and the policy of
 * the DELETION it would reverse (the requested policy's, else the employee's most recently approved
 * DELETION on an ACTIVE policy), with that DELETION and the cover it ended. No row: no such employee.
 */
export interface ReinstatementCandidate {
  employee_code: string;
  /** Only when the request names a policy: whether it is the client's and ACTIVE. */
  policy_found: boolean | null;
  /** The DELETION's policy; null when there is no approved DELETION to reverse. */
  policy_id: string | null;
  policy_number: string | null;
  policy_status: PolicyStatus | null;
  start_date: string | null;
  end_date: string | null;
  slabs: Slab[] | null;
  default_sum_insured: string | null;
  insurer_code: string | null;
  deletion_id: string | null;
  /** The DELETION's coverage_end_date: the cover's last day. */
  deletion_end: string | null;
  deletion_sum_insured: string | null;
  /** The start of the employee's cover the DELETION ended; null when that row is no longer there. */
  cover_start: string | null;
  /** The end of that cover before the DELETION (its ADDITION's end, else the policy's). */
  cover_end_before: string | null;
  /** The employee is covered on the policy today (added again since). */
  employee_active: boolean;
  open_endorsement_id: string | null;
}

/** The accepted reinstatement: the decision with the period it restores. */
export type ReinstatementDecision = EndorsementDecision &
  Required<Pick<EndorsementDecision, 'coverageStartDate' | 'coverageEndDate'>> & {
    /** The DELETION it reverses. */
    deletionId: string;
  };

/** The last day a cover whose last covered day is `coverEnd` can be reinstated. */
export const lastReinstatementDay = (coverEnd: string, windowDays: number): string =>
  addDays(coverEnd, windowDays);

/**
 * Checks a REINSTATEMENT against the DELETION it would reverse, on `today` (India), and prices it.
 * Throws EndorsementRefused: EMPLOYEE_NOT_FOUND, POLICY_NOT_FOUND, NOT_REINSTATABLE (no DELETION
 * approved, its cover not ended yet, nothing left to restore), ALREADY_COVERED (added again since),
 * REINSTATEMENT_WINDOW_CLOSED (the detail names the window, the cover's end and the last day),
 * IN_PROGRESS (D7: another open endorsement).
 */
export function decideReinstatement(
  row: ReinstatementCandidate | undefined,
  req: Pick<EndorsementRequest, 'policyId'>,
  today: string,
  windowDays: number,
): ReinstatementDecision {
  if (!row) throw new EndorsementRefused('EMPLOYEE_NOT_FOUND');
  if (req.policyId && !row.policy_found) throw new EndorsementRefused('POLICY_NOT_FOUND');
  const d = deletionOf(row);
  if (!d) {
    throw new EndorsementRefused(
      'NOT_REINSTATABLE',
      req.policyId
        ? 'the employee has no approved DELETION on this policy to reinstate'
        : 'the employee has no approved DELETION on an active policy to reinstate',
    );
  }
  const restoredStart = addDays(d.deletionEnd, 1);
  if (today < restoredStart) {
    throw new EndorsementRefused(
      'NOT_REINSTATABLE',
      `the cover ends on ${d.deletionEnd} (DELETION ${d.deletionId}); it can be reinstated from ${restoredStart}`,
    );
  }
  if (row.employee_active) {
    throw new EndorsementRefused('ALREADY_COVERED', 'the employee is active on this policy again');
  }
  const lastDay = lastReinstatementDay(d.deletionEnd, windowDays);
  if (today > lastDay) {
    throw new EndorsementRefused(
      'REINSTATEMENT_WINDOW_CLOSED',
      `a REINSTATEMENT is accepted within ${windowDays} days after the cover ended: the cover ended on ` +
        `${d.deletionEnd} (DELETION ${d.deletionId}), the last day it could be reinstated was ${lastDay}`,
    );
  }
  const restoredEnd = d.coverEndBefore < d.policyEnd ? d.coverEndBefore : d.policyEnd;
  if (d.coverStart === null || restoredEnd < restoredStart) {
    throw new EndorsementRefused(
      'NOT_REINSTATABLE',
      d.coverStart === null
        ? `the cover DELETION ${d.deletionId} ended is no longer on the policy`
        : `the cover DELETION ${d.deletionId} ended ran to its end (${restoredEnd}): there is no gap to restore`,
    );
  }
  if (row.open_endorsement_id) throw endorsementInProgress(row.open_endorsement_id);
  const slab = findSlab(d.slabs, d.sumInsured) ?? findSlab(d.slabs, d.defaultSumInsured);
  if (!slab)
    throw new EndorsementRefused('INVALID', 'sum_insured: the member has no premium slab on this policy');
  return {
    policyId: d.policyId,
    deletionId: d.deletionId,
    sumInsured: normaliseAmount(slab.sum_insured),
    coverageStartDate: restoredStart,
    coverageEndDate: restoredEnd,
    premiumImpact: additionPremium(
      { startDate: d.policyStart, endDate: d.policyEnd },
      slab.annual_premium,
      restoredStart,
      restoredEnd,
    ),
    proRataDays: inclusiveDays(restoredStart, restoredEnd),
  };
}

/** The DELETION's facts, when the row holds one (every column of it is then present). */
function deletionOf(row: ReinstatementCandidate) {
  if (!row.policy_id || !row.deletion_id || !row.deletion_end) return undefined;
  return {
    policyId: row.policy_id,
    deletionId: row.deletion_id,
    deletionEnd: row.deletion_end,
    coverStart: row.cover_start,
    coverEndBefore: row.cover_end_before ?? row.end_date!,
    policyStart: row.start_date!,
    policyEnd: row.end_date!,
    slabs: row.slabs ?? [],
    sumInsured: row.deletion_sum_insured ?? row.default_sum_insured!,
    defaultSumInsured: row.default_sum_insured!,
  };
}
