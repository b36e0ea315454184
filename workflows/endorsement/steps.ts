import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  condition,
  deprecatePatch,
  log,
  proxyActivities,
  proxyLocalActivities,
  TimeoutFailure,
  upsertSearchAttributes,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import { isInsurerAssignment, type InsurerAssignment } from '../../domain/insurer-exchange/decisions.js';
import { INSURER_REFUSED } from '../../domain/insurer-exchange/failures.js';
import {
  applicationFailure,
  databaseActivity,
  failureType,
  localDatabaseActivity,
  withSummaries,
} from '../activity-options.js';
import { AwaitingFunds, EndorsementStuck } from '../search-attributes.js';
import {
  ENDORSEMENT_GONE,
  ENDORSEMENT_STATE_CONFLICT,
  REVIEW_REJECTED,
  type EndorsementState,
  type InsurerDecision,
} from './contract.js';
import { stepSummary } from './details.js';
import { watchInsurerSla } from './insurer-sla.js';
import {
  CANCEL_SAFE_INSURER_CALLS,
  DECISION_ENDS_SUBMISSION,
  FILE_INSURER_CUT_OFF,
  FILE_INSURER_WITHDRAWAL,
  INSURER_SLA,
  LOCAL_APPROVAL,
} from './patches.js';
import type { EndorsementRun } from './run.js';

/**
 * The endorsement story's steps (workflow.ts). Every status change is written by an activity, each
 * a guarded statement that treats "already done" as done (the activities' own comments), so a retry,
 * a local re-run or a workflow task taken over by another worker changes nothing twice.
 */
const DB_OUTCOMES = [REVIEW_REJECTED, ENDORSEMENT_GONE, ENDORSEMENT_STATE_CONFLICT];
/** Rejection, cancel, the late routing and the approval's fallback: activities (Pending Activities). */
const db = withSummaries(proxyActivities<Activities>(databaseActivity(DB_OUTCOMES)), stepSummary);
/**
 * The short database steps before the insurer call (LOCAL_DATABASE_STEPS): local activities, in the
 * worker and inside the workflow task, with the same functions and retry policy as the activities.
 */
const localDb = withSummaries(
  proxyLocalActivities<Activities>(localDatabaseActivity(DB_OUTCOMES)),
  stepSummary,
);
/** The approval's one local attempt (LOCAL_APPROVAL). */
const localOnce = withSummaries(
  proxyLocalActivities<Activities>({ ...localDatabaseActivity(DB_OUTCOMES), retry: { maximumAttempts: 1 } }),
  stepSummary,
);
/** While waiting for funds, the hold is re-tried this often (a wake-up signal lost is made up). */
const FUNDS_RECHECK_MS = 10 * 60_000;

/** Workflow time (deterministic: the time of the current workflow task, from history). */
// eslint-disable-next-line no-restricted-globals -- workflow time, not the host clock
const workflowNow = (): number => Date.now();

export interface InsurerCalls {
  submit: (id: string) => Promise<void>;
  withdraw: (id: string) => Promise<void>;
}

/**
 * CANCEL_SAFE_INSURER_CALLS: an insurer may be down for a while, so its calls keep trying with a
 * longer back-off; they heartbeat, and a cancel waits for the call's end. The submit gives up at the
 * stuck timer (schedule-to-close); a withdraw keeps trying (the endorsement is already CANCELLED).
 */
export function insurerCalls(run: EndorsementRun): InsurerCalls {
  deprecatePatch(CANCEL_SAFE_INSURER_CALLS);
  const options: ActivityOptions = {
    startToCloseTimeout: '30 seconds',
    retry: {
      initialInterval: '1 second',
      backoffCoefficient: 2,
      maximumInterval: '1 minute',
      nonRetryableErrorTypes: [ENDORSEMENT_GONE],
    },
    heartbeatTimeout: '5 seconds',
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  };
  const summaries = (name: string) =>
    name === 'submitToInsurer'
      ? run.progress.insurerCall('submit to')
      : run.progress.insurerCall('withdraw from');
  const submitOptions = { ...options, scheduleToCloseTimeout: run.input.stuckAfterMs };
  return {
    submit: withSummaries(proxyActivities<Activities>(submitOptions), summaries).submitToInsurer,
    withdraw: withSummaries(proxyActivities<Activities>(options), summaries).withdrawFromInsurer,
  };
}

/**
 * The review (a local activity), holding nothing yet (CD_HOLD: a balance short of the premium waits
 * for funds instead of rejecting). `gone`: the endorsement row was discarded (its create answered
 * 503); `rejected`: REJECTED with the review's reason; `cancel`: a cancel came meanwhile.
 */
export async function review(run: EndorsementRun): Promise<'reviewed' | 'gone' | 'rejected' | 'cancel'> {
  const outcome = await reviewing(run, () => localDb.reviewEndorsement(run.id, true));
  if (typeof outcome === 'string') return outcome;
  return run.state.cancelRequested ? 'cancel' : 'reviewed';
}

/**
 * REVIEW_HOLD_AND_ROUTE: the review, the CD hold and the routing in one local activity. `routed`:
 * held and routed, the insurer's path next (a cancel that came meanwhile is seen there, as one during
 * the routing always was); `reviewed`: the balance was short, so the wait for funds and the routing
 * follow as after `review`; `gone`, `rejected` and `cancel` as review's.
 */
export async function reviewHoldAndRoute(
  run: EndorsementRun,
): Promise<'routed' | 'reviewed' | 'gone' | 'rejected' | 'cancel'> {
  const outcome = await reviewing(run, () => localDb.reviewHoldAndRoute(run.id));
  if (typeof outcome === 'string') return outcome;
  if (!outcome.answer.held) return run.state.cancelRequested ? 'cancel' : 'reviewed';
  routedTo(run, outcome.answer.route);
  return 'routed';
}

/** A call that reviews: its answer, or what its review's failure means for the run. */
async function reviewing<T>(
  run: EndorsementRun,
  call: () => Promise<T>,
): Promise<{ answer: T } | 'gone' | 'rejected' | 'cancel'> {
  run.progress.waitingFor('review');
  try {
    return { answer: await call() };
  } catch (err) {
    const type = failureType(err);
    if (type === ENDORSEMENT_GONE) {
      run.state.discarded = true;
      return 'gone';
    }
    if (type !== REVIEW_REJECTED) throw err;
    if (run.state.cancelRequested) return 'cancel';
    await db.rejectEndorsement(run.id, applicationFailure(err)!.message);
    run.setStatus('ENDORSEMENT_STATUS_REJECTED');
    return 'rejected';
  }
}

/**
 * CD_HOLD: holds the endorsement's cost, or waits (AwaitingFunds = true) for a top-up to place the
 * hold (its signal) or the periodic re-check to find it, oldest first per policy (decided in the
 * database). The stuck timer counts from review, as for a file insurer's cut-off; once funded the
 * insurer's own timer takes over. Returns false when a cancel came first.
 */
export async function holdFunds(run: EndorsementRun): Promise<boolean> {
  const { state, funds, progress } = run;
  const stuckAfterMs = run.input.stuckAfterMs;
  const reviewedAt = workflowNow();
  const flag = (key: typeof AwaitingFunds, value: boolean) => upsertSearchAttributes([{ key, value }]);
  let waiting = false;
  for (;;) {
    const seen = funds.wakeUps;
    const answer = await localDb.holdEndorsementFunds(run.id);
    if (answer.held) break;
    if (!waiting) {
      waiting = true;
      funds.waited = true;
      flag(AwaitingFunds, true);
      progress.waitingFor('funds', reviewedAt + stuckAfterMs);
      log.info('endorsement waiting for funds', { endorsementId: run.id });
    }
    const stuckIn = stuckAfterMs - (workflowNow() - reviewedAt);
    const wait = state.stuck || stuckIn <= 0 ? FUNDS_RECHECK_MS : Math.min(FUNDS_RECHECK_MS, stuckIn);
    await condition(() => funds.wakeUps !== seen || state.cancelRequested, wait);
    if (state.cancelRequested) break;
    if (!state.stuck && workflowNow() - reviewedAt >= stuckAfterMs) {
      state.stuck = true;
      flag(EndorsementStuck, true);
      log.warn('endorsement stuck: still waiting for funds', { endorsementId: run.id });
    }
  }
  if (waiting) flag(AwaitingFunds, false);
  if (state.stuck) {
    state.stuck = false;
    flag(EndorsementStuck, false);
  }
  return !state.cancelRequested;
}

/**
 * FILE_INSURER_CUT_OFF: one activity routes; a file insurer's endorsement is queued for the cut-off,
 * any other is marked SENT_TO_INSURER by the same activity. After a wait for funds, the flags just
 * cleared reach Temporal when this workflow task completes; routing as a local activity would write
 * SENT_TO_INSURER before that, so an operator could see it SENT and still awaiting funds. The
 * activity keeps the order: flags cleared, then routed.
 */
export async function route(run: EndorsementRun): Promise<void> {
  deprecatePatch(FILE_INSURER_CUT_OFF);
  routedTo(run, await (run.funds.waited ? db : localDb).routeAfterReview(run.id));
}

/**
 * The route taken: shown in the details; a file insurer's cut-off or an adapter's submit follows.
 * Sent now (any other insurer): who has it and since when, for the SLA watch (SLA_WATCH_TOLD).
 */
function routedTo(
  run: EndorsementRun,
  routed: { adapter: string; insurerCode: string; insurer?: InsurerAssignment },
): void {
  run.progress.routed(routed);
  run.fileInsurer = routed.adapter === 'file';
  if (isInsurerAssignment(routed.insurer)) run.told = routed.insurer;
}

/** Starts the insurer SLA's watch (SENT_TO_INSURER from now on) and shows its due time. */
async function watchSla(run: EndorsementRun): Promise<void> {
  const { input, progress } = run;
  run.sla = await watchInsurerSla(run.id, input.slaAfterMs, run.settled, () => progress.show(), run.told);
  progress.slaDue(run.sla.dueAt);
}

/**
 * D14, a file insurer: PENDING until its cut-off delivered the file (the cut-off's statement made it
 * SENT_TO_INSURER), then the decision. The stuck timer counts from review: an SFTP server down at the
 * cut-off makes it stuck. Returns at a cancel, a decision, or (stuck) never until one of them.
 */
export async function sendByCutOff(run: EndorsementRun): Promise<void> {
  const { input, state, progress } = run;
  const reviewedAt = workflowNow();
  progress.waitingFor('cut-off', reviewedAt + input.stuckAfterMs);
  await waitForCutOff(run);
  if (state.cancelRequested) return;
  state.received = true;
  run.setStatus('ENDORSEMENT_STATUS_SENT_TO_INSURER');
  state.submitted = true;
  await watchSla(run);
  const left = input.stuckAfterMs - (workflowNow() - reviewedAt);
  progress.waitingFor('decision', reviewedAt + input.stuckAfterMs);
  await waitForDecision(
    run,
    Math.max(left, 0),
    left <= 0 || state.stuck,
    'its insurer file was delivered after the SLA and no decision came yet',
  );
}

/**
 * Any other insurer: SENT_TO_INSURER (written by the routing), the SLA watch (INSURER_SLA), the
 * submit through its adapter, then the decision. Returns at a cancel, a decision, or never (stuck)
 * until one of them.
 */
export async function sendByAdapter(run: EndorsementRun, insurer: InsurerCalls): Promise<void> {
  const { input, state, progress } = run;
  run.setStatus('ENDORSEMENT_STATUS_SENT_TO_INSURER');
  deprecatePatch(INSURER_SLA);
  await watchSla(run);
  if (state.cancelRequested) return;

  progress.waitingFor('submission');
  const reached = await submit(run, insurer.submit);
  if (state.cancelRequested) return;

  // A decision already in is what the insurer last said (details only: no command depends on it).
  if (!run.decision)
    progress.insurerSaid(
      reached ? 'submission received' : 'submission not received (refused or unreachable)',
    );
  progress.waitingFor('decision', reached ? workflowNow() + input.stuckAfterMs : workflowNow());
  await waitForDecision(run, input.stuckAfterMs, !reached);
}

/**
 * D7: CANCELLED for the client first; a cancel after submission then tells the insurer to withdraw,
 * or (FILE_INSURER_WITHDRAWAL) for a file insurer queues the withdrawal its next cut-off's file carries.
 */
export async function cancel(run: EndorsementRun, insurer: InsurerCalls): Promise<EndorsementState> {
  await db.cancelEndorsement(run.id);
  run.setStatus('ENDORSEMENT_STATUS_CANCELLED');
  if (run.state.submitted && !run.fileInsurer) await insurer.withdraw(run.id);
  else if (run.state.submitted) {
    deprecatePatch(FILE_INSURER_WITHDRAWAL);
    await db.queueFileWithdrawal(run.id);
  }
  return run.finish();
}

/** The insurer's decision recorded: APPROVED (enrolment, ledger) or REJECTED with its reason. */
export async function record(run: EndorsementRun, d: InsurerDecision): Promise<EndorsementState> {
  if (d.decision === 'APPROVED') {
    // The dependents' UHIDs ride in the activity's input only when the decision has them.
    const ids = { insurerMemberId: d.insurer_member_id ?? null, uhid: d.uhid ?? null };
    await approve(run.id, d.members ? { ...ids, members: d.members } : ids);
    run.setStatus('ENDORSEMENT_STATUS_APPROVED');
  } else {
    await db.rejectEndorsement(run.id, d.rejection_reason ?? 'Rejected by insurer');
    run.setStatus('ENDORSEMENT_STATUS_REJECTED');
  }
  return run.finish();
}

/**
 * LOCAL_APPROVAL: one local attempt in the workflow task that sees the decision; any failure of it
 * (the database down, a business outcome, a timeout) hands the approval to the activity: retried until
 * the database answers, shown under Pending Activities, failing the same way on a business outcome.
 * The same function either way, so the same idempotency: an endorsement already APPROVED means an
 * earlier attempt committed, and the activity after a local attempt that committed but did not report
 * writes nothing again. A worker dying mid-attempt times the workflow task out; the next one retries.
 */
async function approve(id: string, ids: Parameters<typeof db.applyApproval>[1]): Promise<void> {
  deprecatePatch(LOCAL_APPROVAL);
  const applied = await localOnce.applyApproval(id, ids).then(
    () => true,
    () => false,
  );
  if (applied) return;
  log.warn('endorsement approval handed to an activity after a failed local attempt', { endorsementId: id });
  await db.applyApproval(id, ids);
}

/**
 * Submits through the adapter. A cancel or (DECISION_ENDS_SUBMISSION) a decision arriving meanwhile
 * cancels the call and waits until it has ended (WAIT_CANCELLATION_COMPLETED), so a withdraw that
 * follows never reaches the insurer before its submit. Returns false when the insurer could not be
 * reached within the SLA (the schedule-to-close) or refused the submission: the endorsement is then
 * flagged stuck at once.
 */
async function submit(run: EndorsementRun, submitToInsurer: InsurerCalls['submit']): Promise<boolean> {
  deprecatePatch(DECISION_ENDS_SUBMISSION);
  const { state } = run;
  const scope = new CancellationScope();
  // Settles either way, so losing the race below never leaves a rejection unhandled.
  const submitting = scope
    .run(() => submitToInsurer(run.id))
    .then(
      () => {
        state.received = true;
        return { failure: null };
      },
      (failure: Error) => ({ failure }),
    );
  state.submitted = true;
  const outcome = await Promise.race([submitting, condition(run.settled).then(() => 'cancelled' as const)]);
  if (outcome === 'cancelled') {
    scope.cancel();
    await submitting;
    return true;
  }
  const { failure } = outcome;
  // Past the schedule-to-close: the last attempt timed out, or the next retry no longer fitted.
  const gaveUp =
    failure instanceof ActivityFailure &&
    (failure.retryState === 'TIMEOUT' || failure.cause instanceof TimeoutFailure);
  // The insurer refused the submission outright (an api insurer's 4xx): never rejected on our own
  // (D14), flagged for an operator, who can cancel it or record the insurer's decision.
  const refused =
    failure instanceof ActivityFailure &&
    failure.cause instanceof ApplicationFailure &&
    failure.cause.type === INSURER_REFUSED;
  if (gaveUp || refused) return false;
  if (failure) throw failure;
  return true;
}

/**
 * D14: waits, PENDING, until the insurer's cut-off has delivered the file or a cancel; flags
 * EndorsementStuck when that takes longer than the stuck timer (from review), and keeps the flag on:
 * the endorsement is still not with the insurer, and then waits for its decision.
 */
async function waitForCutOff(run: EndorsementRun): Promise<void> {
  const { state, progress } = run;
  const stuckAfterMs = run.input.stuckAfterMs;
  const settled = () => run.delivered || state.cancelRequested;
  if (await condition(settled, stuckAfterMs, progress.stuckTimer(stuckAfterMs, 'the cut-off'))) return;
  state.stuck = true;
  upsertSearchAttributes([{ key: EndorsementStuck, value: true }]);
  progress.show();
  log.warn('endorsement stuck: its insurer file was not delivered within the SLA', {
    endorsementId: run.id,
    stuckAfterMs,
  });
  await condition(settled);
}

/**
 * Waits for the decision or a cancel; flags EndorsementStuck after `stuckAfterMs` until one arrives,
 * or at once when `stuckNow` (the submit could not reach the insurer, or the file came after the SLA).
 */
async function waitForDecision(
  run: EndorsementRun,
  stuckAfterMs: number,
  stuckNow = false,
  whyNow = 'the insurer could not be reached within the SLA',
): Promise<void> {
  const { state, progress } = run;
  const timer = progress.stuckTimer(stuckAfterMs, 'a decision');
  if (!stuckNow && (await condition(run.settled, stuckAfterMs, timer))) return;
  state.stuck = true;
  upsertSearchAttributes([{ key: EndorsementStuck, value: true }]);
  progress.show();
  const why = stuckNow ? whyNow : 'no insurer decision within the SLA';
  log.warn(`endorsement stuck: ${why}`, { endorsementId: run.id, stuckAfterMs });
  await condition(run.settled);
  state.stuck = false;
  upsertSearchAttributes([{ key: EndorsementStuck, value: false }]);
  progress.show();
  log.info('endorsement no longer stuck', { endorsementId: run.id });
}
