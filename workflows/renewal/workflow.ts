import { condition, log, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import { databaseActivity, failureType } from '../activity-options.js';
import {
  RENEWAL_REFUSED,
  renewalNudgeSignal,
  type RenewalClock,
  type RenewalOutcome,
  type RenewalWorkflowInput,
} from './contract.js';

const db = proxyActivities<Activities>(databaseActivity([RENEWAL_REFUSED]));

/** The insurer's side may be down for a while: the submission retries with back-off, for days if need be. */
const insurer = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '30 minutes' },
});

/**
 * D17: one policy term's renewal. Opens the draft; waits for HR's decision until the day it confirms
 * itself; once confirmed, sends the renewal to the insurer and waits for the new term's first day,
 * when the new policy takes over; once declined, waits for the day after the end and expires the
 * term. Every date is read against the service's clock (D13) by an activity, which answers how long
 * until it; a timer waits that long, and a nudge (HR's decision, the daily pass) makes it look again,
 * so a clock that moved (a pinned clock in tests, a corrected one) is honoured the same day.
 */
export async function renewalWorkflow(input: RenewalWorkflowInput): Promise<RenewalOutcome> {
  let nudged = false;
  setHandler(renewalNudgeSignal, () => {
    nudged = true;
  });
  /** Waits until the step's date or a nudge, then reads the renewal again. */
  const wait = async (clock: RenewalClock): Promise<void> => {
    nudged = false;
    if (clock.dueInMs > 0) await condition(() => nudged, clock.dueInMs);
  };

  let renewalId: string;
  try {
    renewalId = await db.openRenewalDraft(input);
  } catch (err) {
    // Other failures are retried by the activity until the database answers; this one cannot change.
    if (failureType(err) !== RENEWAL_REFUSED) throw err;
    log.warn('policy not renewable', { policyId: input.policyId });
    return 'NOT_RENEWABLE';
  }
  for (;;) {
    const clock = await db.readRenewalClock(input);
    if (clock.status === 'RENEWED') return 'RENEWED';
    if (clock.status === 'EXPIRED') return 'EXPIRED';
    if (clock.status === 'DRAFT') {
      if (clock.dueInMs === 0) await db.confirmRenewalByItself({ ...input, renewalId });
      else await wait(clock);
      continue;
    }
    if (clock.status === 'CONFIRMED' && !clock.submitted) {
      await insurer.submitRenewalToInsurer(input);
      continue;
    }
    if (clock.dueInMs > 0) {
      await wait(clock);
      continue;
    }
    if (clock.status === 'CONFIRMED') await db.renewPolicyTerm(input);
    else await db.expireDeclinedTerm(input);
  }
}
