import {
  ActivityCancellationType,
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  TimeoutFailure,
  upsertSearchAttributes,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import {
  applicationFailure,
  databaseActivity,
  failureType,
  localDatabaseActivity,
  withSummaries,
} from '../activity-options.js';
import type { EndorsementStatus as Status } from '../../domain/enums.js';
import { INSURER_REFUSED } from '../../domain/insurer-exchange/failures.js';
import { AwaitingFunds, EndorsementStatus, EndorsementStuck } from '../search-attributes.js';
import { cleanMemberUhids, decisionVerdict } from '../../domain/insurer-exchange/decisions.js';
import { INSURER_SLA, watchInsurerSla, type SlaWatch } from './insurer-sla.js';
import { stepSummary } from './details.js';
import { EndorsementProgress } from './progress.js';
import {
  CANCEL_REFUSED,
  cancelEndorsementSignal,
  cdFundsHeldSignal,
  cancelEndorsementUpdate,
  cutOffDeliveredSignal,
  DECISION_DUPLICATE,
  DECISION_REFUSED,
  ENDORSEMENT_GONE,
  ENDORSEMENT_STATE_CONFLICT,
  endorsementStateQuery,
  insurerDecisionSignal,
  insurerDecisionUpdate,
  isOpenStatus,
  REVIEW_REJECTED,
  submissionFailingSignal,
  submissionFailureQuery,
  type EndorsementState,
  type EndorsementWorkflowInput,
  type InsurerDecision,
} from './contract.js';

const DB_OUTCOMES = [REVIEW_REJECTED, ENDORSEMENT_GONE, ENDORSEMENT_STATE_CONFLICT];
const db = withSummaries(proxyActivities<Activities>(databaseActivity(DB_OUTCOMES)), stepSummary);

/**
 * The short database steps before the insurer call (review, the CD hold, routing, and the SLA
 * watch's read of who has the endorsement) run as local activities: in the worker, inside the
 * workflow task, without an activity task and a workflow task of their own on the server each (docs/performance.md,
 * "What changed a row"). The same functions with the same retry policy, so the same
 * idempotency: each is a guarded statement that treats "already done" as done, and a re-run (a local
 * retry, or the workflow task taken over by another worker after a crash) changes nothing twice.
 * Rejection and cancel stay activities (an operator sees them under Pending Activities while the
 * database is down); the approval is tried locally once first (LOCAL_APPROVAL). Runs started
 * before the patch replay these steps as activities.
 */
export const LOCAL_DATABASE_STEPS = 'local-database-steps';
const localDb = withSummaries(
  proxyLocalActivities<Activities>(localDatabaseActivity(DB_OUTCOMES)),
  stepSummary,
);
/**
 * The approval, tried once as a local activity in the workflow task that sees the decision and the
 * submit's end: no activity task and no workflow task of its own when the database answers (docs/performance.md,
 * "What changed a row"). Any failure of that one attempt (the database down, a business
 * outcome, a timeout) hands the approval to the activity it was before the patch: retried until the
 * database answers, shown under Pending Activities, failing the same way on a business outcome. The
 * same function either way, so the same idempotency: an endorsement already APPROVED means an earlier
 * attempt committed, and the activity after a local attempt that committed but did not report
 * writes nothing again. A worker dying mid-attempt times the workflow task out; the next worker
 * tries again. Runs started before the patch schedule the activity only.
 */
export const LOCAL_APPROVAL = 'local-approval-first';
const localOnce = withSummaries(
  proxyLocalActivities<Activities>({ ...localDatabaseActivity(DB_OUTCOMES), retry: { maximumAttempts: 1 } }),
  stepSummary,
);
/** The steps LOCAL_DATABASE_STEPS moves: local activities, or activities in runs from before it. */
type ShortSteps = Pick<typeof db, 'reviewEndorsement' | 'holdEndorsementFunds' | 'routeAfterReview'>;

/** Insurer calls: an insurer may be down for a while; keep trying with a longer back-off. */
const INSURER_CALL: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: [ENDORSEMENT_GONE],
  },
};
/** Runs started before the patch below: no heartbeat, a cancel abandons a running submit. */
const legacyInsurer = proxyActivities<Activities>(INSURER_CALL);

/**
 * The patch that makes insurer calls safe to cancel: the adapter calls heartbeat (a cancel reaches
 * a running call; a dead worker is noticed within seconds), a cancel waits until the submit has
 * ended or confirmed its cancellation (so the withdraw never overtakes it), and a submit that cannot
 * reach the insurer within the SLA gives up into the stuck path instead of retrying for ever.
 */
export const CANCEL_SAFE_INSURER_CALLS = 'cancel-safe-insurer-calls';

function insurerCalls(stuckAfterMs: number, progress: EndorsementProgress) {
  const options: ActivityOptions = {
    ...INSURER_CALL,
    heartbeatTimeout: '5 seconds',
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  };
  const summaries = (name: string) =>
    name === 'submitToInsurer' ? progress.insurerCall('submit to') : progress.insurerCall('withdraw from');
  return {
    submit: withSummaries(
      proxyActivities<Activities>({ ...options, scheduleToCloseTimeout: stuckAfterMs }),
      summaries,
    ).submitToInsurer,
    // A withdraw keeps trying: the endorsement is already CANCELLED for the client.
    withdraw: withSummaries(proxyActivities<Activities>(options), summaries).withdrawFromInsurer,
  };
}

/**
 * D14: a decision recorded while the submit is still trying (an operator's forced decision for an
 * insurer that has the endorsement by other means, or the insurer's own answer) ends the submit: it
 * is cancelled as a cancel does (waiting for its end), and the decision is applied at once instead
 * of after the submit's schedule-to-close. Runs that reached the submit before the patch keep
 * trying until the submit ends, as they did.
 */
export const DECISION_ENDS_SUBMISSION = 'decision-ends-submission';

/**
 * D14 file insurers: after review the endorsement stays PENDING until its insurer's cut-off has
 * delivered the file carrying it. The cut-off batch (workflows/insurer-cut-off) moves it to
 * SENT_TO_INSURER in its bulk statement and then signals `cutOffDelivered`; the workflow only
 * mirrors that status and waits for the decision. Runs started before the patch replay without the
 * routing activity (every insurer is submitted to through its adapter).
 */
export const FILE_INSURER_CUT_OFF = 'file-insurer-cut-off';

/**
 * D7 for file insurers: a cancel after the file was delivered queues a withdrawal that the next
 * cut-off's file carries (a cancellation row). Runs that reached this point before the patch ended
 * without it (docs/operators/README.md, "Deploying workflow changes").
 */
export const FILE_INSURER_WITHDRAWAL = 'file-insurer-withdrawal';

/**
 * The CD account: after review the endorsement holds what it will cost, or waits in PENDING for
 * funds (AwaitingFunds) until a top-up places its hold; the review no longer rejects a balance
 * short of the premium. Runs started before the patch replay the old review and hold nothing.
 */
export const CD_HOLD = 'cd-hold';
/** While waiting for funds, the hold is re-tried this often (a wake-up signal lost is made up). */
const FUNDS_RECHECK_MS = 10 * 60_000;

/** Workflow time (deterministic: the time of the current workflow task, from history). */
// eslint-disable-next-line no-restricted-globals -- workflow time, not the host clock
const workflowNow = (): number => Date.now();

/** D8's signal accepts any decision with an outcome (its optional fields are cleaned below). */
const isDecision = (d: unknown): d is InsurerDecision =>
  typeof d === 'object' && d !== null && ['APPROVED', 'REJECTED'].includes((d as InsurerDecision).decision);

/** Keeps only well-formed optional fields of a decision (strings of a sane length). */
function cleanDecision(d: InsurerDecision): InsurerDecision {
  const text = (v: unknown, max: number) =>
    typeof v === 'string' && v.trim() ? v.trim().slice(0, max) : undefined;
  const clean: InsurerDecision = { decision: d.decision };
  const memberId = text(d.insurer_member_id, 100);
  const uhid = text(d.uhid, 100);
  const reason = text(d.rejection_reason, 1000);
  if (memberId) clean.insurer_member_id = memberId;
  if (uhid) clean.uhid = uhid;
  if (reason) clean.rejection_reason = reason;
  const source = text(d.source, 200);
  if (source) clean.source = source;
  const members = d.decision === 'APPROVED' ? cleanMemberUhids(d.members) : undefined;
  if (members) clean.members = members;
  return clean;
}

/**
 * One endorsement (D7): review -> SENT_TO_INSURER (submit through the insurer's adapter) -> the
 * insurer's decision or a cancel -> APPROVED (enrolment, ledger) / REJECTED / CANCELLED. Every status
 * change is written by an activity and mirrored into the EndorsementStatus search attribute.
 */
export async function endorsementWorkflow(input: EndorsementWorkflowInput): Promise<EndorsementState> {
  const id = input.endorsementId;
  const state: EndorsementState = {
    endorsementId: id,
    status: 'ENDORSEMENT_STATUS_PENDING',
    decision: null,
    submitted: false,
    received: false,
    cancelRequested: false,
    stuck: false,
    discarded: false,
  };
  let decision: InsurerDecision | null = null;
  const progress = new EndorsementProgress(input, state);
  const insurer = patched(CANCEL_SAFE_INSURER_CALLS) ? insurerCalls(input.stuckAfterMs, progress) : null;
  const local = patched(LOCAL_DATABASE_STEPS);
  const steps: ShortSteps = local ? localDb : db;
  const cancellable = () =>
    isOpenStatus(state.status) && !state.discarded && (state.cancelRequested || !decision);

  setHandler(endorsementStateQuery, () => ({ ...state }));
  // What the submit activity last reported, shown in the details until the insurer has it. The
  // signal only changes the details (query-side), never the commands, so runs replay as before.
  setHandler(submissionFailureQuery, () => progress.submissionFailure);
  setHandler(submissionFailingSignal, (f) => {
    if (!state.received) progress.submissionFailing(f);
  });
  // D8: the first decision counts; a duplicate, a late one or one after a cancel changes nothing.
  setHandler(insurerDecisionSignal, (d) => {
    if (decision || state.cancelRequested || !isOpenStatus(state.status) || !isDecision(d)) return;
    decision = cleanDecision(d);
    state.decision = d.decision;
    progress.decided(d.decision, decision.source ? `signal: ${decision.source}` : 'signal');
  });
  // D14: the same first-decision-counts rule, answered synchronously. The validator runs before
  // anything is recorded, so a refused or duplicate decision leaves no trace in the history.
  setHandler(
    insurerDecisionUpdate,
    (d) => {
      decision = cleanDecision(d);
      state.decision = d.decision;
      progress.decided(d.decision, decision.source ?? 'decision update');
      return { result: 'accepted', detail: `${d.decision} recorded` };
    },
    {
      validator: (d) => {
        const verdict = decisionVerdict(state, decision?.decision ?? null, d);
        if (verdict.result === 'accepted') return;
        const type = verdict.result === 'duplicate' ? DECISION_DUPLICATE : DECISION_REFUSED;
        throw ApplicationFailure.create({ type, message: verdict.detail, nonRetryable: true });
      },
    },
  );
  // D14: the cut-off's bulk statement already moved the row; a late one after a cancel is ignored.
  let delivered = false;
  setHandler(cutOffDeliveredSignal, (d) => {
    if (state.cancelRequested || state.status !== 'ENDORSEMENT_STATUS_PENDING') return;
    delivered = true;
    progress.fileDelivered(d?.cutOff);
  });
  let fileInsurer = false;
  setHandler(cancelEndorsementSignal, () => {
    if (cancellable()) state.cancelRequested = true;
  });
  setHandler(
    cancelEndorsementUpdate,
    async () => {
      state.cancelRequested = true;
      await condition(() => state.status === 'ENDORSEMENT_STATUS_CANCELLED' || state.discarded);
      return { ...state };
    },
    {
      validator: () => {
        if (!cancellable()) {
          const what = state.decision ?? state.status;
          throw ApplicationFailure.create({ type: CANCEL_REFUSED, message: `endorsement already ${what}` });
        }
      },
    },
  );

  const setStatus = (status: Status) => {
    state.status = status;
    upsertSearchAttributes([{ key: EndorsementStatus, value: status }]);
    // The workflow logger adds workflowId and runId; ids only, no personal data.
    log.info('endorsement status changed', { endorsementId: id, status });
    progress.show();
  };
  let sla: SlaWatch | null = null;
  const finish = async () => {
    await sla?.ended();
    await condition(allHandlersFinished);
    return { ...state };
  };
  const cancel = async () => {
    await db.cancelEndorsement(id);
    setStatus('ENDORSEMENT_STATUS_CANCELLED');
    // D7: a cancel after submission tells the insurer to withdraw (after the client has its answer);
    // a file insurer hears it from its next cut-off's file.
    if (state.submitted && !fileInsurer)
      await (insurer ? insurer.withdraw(id) : legacyInsurer.withdrawFromInsurer(id));
    else if (state.submitted && patched(FILE_INSURER_WITHDRAWAL)) await db.queueFileWithdrawal(id);
    return finish();
  };

  const cdHold = patched(CD_HOLD);
  const funds = { wakeUps: 0, waited: false };
  setHandler(cdFundsHeldSignal, () => void funds.wakeUps++);
  progress.waitingFor('review');
  try {
    await steps.reviewEndorsement(id, cdHold);
  } catch (err) {
    const type = failureType(err);
    if (type === ENDORSEMENT_GONE) {
      state.discarded = true;
      return finish();
    }
    if (type !== REVIEW_REJECTED) throw err;
    if (state.cancelRequested) return cancel();
    await db.rejectEndorsement(id, applicationFailure(err)!.message);
    setStatus('ENDORSEMENT_STATUS_REJECTED');
    return finish();
  }
  if (state.cancelRequested) return cancel();
  if (cdHold && !(await awaitFunds(steps, input.stuckAfterMs, state, funds, progress))) return cancel();

  // Since the patch one activity routes: a file insurer's endorsement is queued for the cut-off,
  // any other is marked SENT_TO_INSURER by the same activity (no separate markSentToInsurer).
  // After a wait for funds, the flags just cleared reach Temporal when this workflow task completes;
  // routing as a local activity would write SENT_TO_INSURER before that, so an operator could see it
  // SENT and still awaiting funds. The activity keeps the order: flags cleared, then routed.
  const router = funds.waited ? db : steps;
  const route = patched(FILE_INSURER_CUT_OFF) ? await router.routeAfterReview(id) : null;
  progress.routed(route);
  const watchSla = async () => {
    const settled = () => decision !== null || state.cancelRequested;
    const watch = await watchInsurerSla(id, input.slaAfterMs, settled, () => progress.show(), local);
    progress.slaDue(watch.dueAt);
    return watch;
  };
  if (route?.adapter === 'file') {
    fileInsurer = true;
    // The stuck timer counts from review (D14): an SFTP server down at the cut-off makes it stuck.
    const reviewedAt = workflowNow();
    progress.waitingFor('cut-off', reviewedAt + input.stuckAfterMs);
    await waitForCutOff(input.stuckAfterMs, state, () => delivered, progress);
    if (state.cancelRequested) return cancel();
    state.received = true;
    setStatus('ENDORSEMENT_STATUS_SENT_TO_INSURER');
    state.submitted = true;
    sla = await watchSla();
    const left = input.stuckAfterMs - (workflowNow() - reviewedAt);
    progress.waitingFor('decision', reviewedAt + input.stuckAfterMs);
    await waitForDecision(
      Math.max(left, 0),
      state,
      () => decision !== null,
      progress,
      left <= 0 || state.stuck,
      'its insurer file was delivered after the SLA and no decision came yet',
    );
  } else {
    if (!route) await db.markSentToInsurer(id);
    setStatus('ENDORSEMENT_STATUS_SENT_TO_INSURER');
    if (patched(INSURER_SLA)) sla = await watchSla();
    if (state.cancelRequested) return cancel();

    progress.waitingFor('submission');
    const reached = insurer
      ? await submitCancelSafe(insurer.submit, id, state, () => decision !== null)
      : await legacySubmit(id, state);
    if (state.cancelRequested) return cancel();

    // A decision already in is what the insurer last said (details only: no command depends on it).
    if (!decision)
      progress.insurerSaid(
        reached ? 'submission received' : 'submission not received (refused or unreachable)',
      );
    progress.waitingFor('decision', reached ? workflowNow() + input.stuckAfterMs : workflowNow());
    await waitForDecision(input.stuckAfterMs, state, () => decision !== null, progress, !reached);
  }
  if (state.cancelRequested || !decision) return cancel();

  const d: InsurerDecision = decision;
  if (d.decision === 'APPROVED') {
    // The dependents' UHIDs ride in the same activity's input only when the decision has them, so a
    // run recorded before them schedules the very same command (activity inputs are not replayed).
    const ids = { insurerMemberId: d.insurer_member_id ?? null, uhid: d.uhid ?? null };
    await approve(id, d.members ? { ...ids, members: d.members } : ids);
    setStatus('ENDORSEMENT_STATUS_APPROVED');
  } else {
    await db.rejectEndorsement(id, d.rejection_reason ?? 'Rejected by insurer');
    setStatus('ENDORSEMENT_STATUS_REJECTED');
  }
  return finish();
}

/** LOCAL_APPROVAL: one local attempt, then the activity; runs from before it, the activity only. */
async function approve(id: string, ids: Parameters<typeof db.applyApproval>[1]): Promise<void> {
  if (patched(LOCAL_APPROVAL)) {
    const applied = await localOnce.applyApproval(id, ids).then(
      () => true,
      () => false,
    );
    if (applied) return;
    log.warn('endorsement approval handed to an activity after a failed local attempt', {
      endorsementId: id,
    });
  }
  await db.applyApproval(id, ids);
}

/**
 * CD_HOLD: holds the endorsement's cost, or waits (AwaitingFunds = true) for a top-up to place the
 * hold (its signal) or the periodic re-check to find it, oldest first per policy (decided in the
 * database). The stuck timer counts from review, as for a file insurer's cut-off; once funded the
 * insurer's own timer takes over. Returns false when a cancel came first.
 */
async function awaitFunds(
  steps: ShortSteps,
  stuckAfterMs: number,
  state: EndorsementState,
  funds: { wakeUps: number; waited: boolean },
  progress: EndorsementProgress,
): Promise<boolean> {
  const reviewedAt = workflowNow();
  const flag = (key: typeof AwaitingFunds, value: boolean) => upsertSearchAttributes([{ key, value }]);
  let waiting = false;
  for (;;) {
    const seen = funds.wakeUps;
    const answer = await steps.holdEndorsementFunds(state.endorsementId);
    if (answer.held) break;
    if (!waiting) {
      waiting = true;
      funds.waited = true;
      flag(AwaitingFunds, true);
      progress.waitingFor('funds', reviewedAt + stuckAfterMs);
      log.info('endorsement waiting for funds', { endorsementId: state.endorsementId });
    }
    const stuckIn = stuckAfterMs - (workflowNow() - reviewedAt);
    const wait = state.stuck || stuckIn <= 0 ? FUNDS_RECHECK_MS : Math.min(FUNDS_RECHECK_MS, stuckIn);
    await condition(() => funds.wakeUps !== seen || state.cancelRequested, wait);
    if (state.cancelRequested) break;
    if (!state.stuck && workflowNow() - reviewedAt >= stuckAfterMs) {
      state.stuck = true;
      flag(EndorsementStuck, true);
      log.warn('endorsement stuck: still waiting for funds', { endorsementId: state.endorsementId });
    }
  }
  if (waiting) flag(AwaitingFunds, false);
  if (state.stuck) {
    state.stuck = false;
    flag(EndorsementStuck, false);
  }
  return !state.cancelRequested;
}

/** Runs started before CANCEL_SAFE_INSURER_CALLS: a cancel abandons the running call. */
async function legacySubmit(id: string, state: EndorsementState): Promise<true> {
  const scope = new CancellationScope();
  const submitting = scope.run(() => legacyInsurer.submitToInsurer(id));
  state.submitted = true;
  const outcome = await Promise.race([
    submitting.then(() => {
      state.received = true;
      return 'submitted' as const;
    }),
    condition(() => state.cancelRequested).then(() => 'cancelled' as const),
  ]);
  if (outcome === 'cancelled') {
    scope.cancel();
    await submitting.catch(() => undefined);
  }
  return true;
}

/**
 * Submits through the adapter. A cancel arriving meanwhile cancels the call and waits until it has
 * ended (WAIT_CANCELLATION_COMPLETED), so the withdraw that follows never reaches the insurer before
 * its submit; since DECISION_ENDS_SUBMISSION a decision does the same. Returns false when the
 * insurer could not be reached within the SLA (the schedule-to-close): the endorsement is then
 * flagged stuck at once.
 */
async function submitCancelSafe(
  submitToInsurer: (id: string) => Promise<void>,
  id: string,
  state: EndorsementState,
  decided: () => boolean,
): Promise<boolean> {
  const endsOnDecision = patched(DECISION_ENDS_SUBMISSION);
  const scope = new CancellationScope();
  // Settles either way, so losing the race below never leaves a rejection unhandled.
  const submitting = scope
    .run(() => submitToInsurer(id))
    .then(
      () => {
        state.received = true;
        return { failure: null };
      },
      (failure: Error) => ({ failure }),
    );
  state.submitted = true;
  const outcome = await Promise.race([
    submitting,
    condition(() => state.cancelRequested || (endsOnDecision && decided())).then(() => 'cancelled' as const),
  ]);
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
 * D14: waits, PENDING, until the insurer's cut-off has delivered the file (`delivered`) or a cancel;
 * flags EndorsementStuck when that takes longer than the stuck timer (from review), and keeps the
 * flag on: the endorsement is still not with the insurer, and then waits for its decision.
 */
async function waitForCutOff(
  stuckAfterMs: number,
  state: EndorsementState,
  delivered: () => boolean,
  progress: EndorsementProgress,
) {
  const settled = () => delivered() || state.cancelRequested;
  if (await condition(settled, stuckAfterMs, progress.stuckTimer(stuckAfterMs, 'the cut-off'))) return;
  state.stuck = true;
  upsertSearchAttributes([{ key: EndorsementStuck, value: true }]);
  progress.show();
  log.warn('endorsement stuck: its insurer file was not delivered within the SLA', {
    endorsementId: state.endorsementId,
    stuckAfterMs,
  });
  await condition(settled);
}

/**
 * Waits for the decision or a cancel; flags EndorsementStuck after the SLA until one arrives, or at
 * once when the submit could not reach the insurer (`stuckNow`).
 */
async function waitForDecision(
  stuckAfterMs: number,
  state: EndorsementState,
  decided: () => boolean,
  progress: EndorsementProgress,
  stuckNow = false,
  whyNow = 'the insurer could not be reached within the SLA',
) {
  const settled = () => decided() || state.cancelRequested;
  const timer = progress.stuckTimer(stuckAfterMs, 'a decision');
  if (!stuckNow && (await condition(settled, stuckAfterMs, timer))) return;
  state.stuck = true;
  upsertSearchAttributes([{ key: EndorsementStuck, value: true }]);
  progress.show();
  const why = stuckNow ? whyNow : 'no insurer decision within the SLA';
  log.warn(`endorsement stuck: ${why}`, { endorsementId: state.endorsementId, stuckAfterMs });
  await condition(settled);
  state.stuck = false;
  upsertSearchAttributes([{ key: EndorsementStuck, value: false }]);
  progress.show();
  log.info('endorsement no longer stuck', { endorsementId: state.endorsementId });
}
