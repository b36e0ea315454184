import {
  type ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  log,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import { databaseActivity, failureType } from '../activity-options.js';
import type { EndorsementStatus as Status } from '../../domain/enums.js';
import { EndorsementStatus, EndorsementStuck } from '../search-attributes.js';
import {
  CANCEL_REFUSED,
  cancelEndorsementSignal,
  cancelEndorsementUpdate,
  ENDORSEMENT_GONE,
  ENDORSEMENT_STATE_CONFLICT,
  endorsementStateQuery,
  insurerDecisionSignal,
  isOpenStatus,
  REVIEW_REJECTED,
  type EndorsementState,
  type EndorsementWorkflowInput,
  type InsurerDecision,
} from './contract.js';

const db = proxyActivities<Activities>(
  databaseActivity([REVIEW_REJECTED, ENDORSEMENT_GONE, ENDORSEMENT_STATE_CONFLICT]),
);

/** Insurer calls: an insurer may be down for a while; keep trying with a longer back-off. */
const insurer = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: [ENDORSEMENT_GONE],
  },
});

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
    cancelRequested: false,
    stuck: false,
    discarded: false,
  };
  let decision: InsurerDecision | null = null;
  const cancellable = () =>
    isOpenStatus(state.status) && !state.discarded && (state.cancelRequested || !decision);

  setHandler(endorsementStateQuery, () => ({ ...state }));
  // D8: the first decision counts; a duplicate, a late one or one after a cancel changes nothing.
  setHandler(insurerDecisionSignal, (d) => {
    if (decision || state.cancelRequested || !isOpenStatus(state.status) || !isDecision(d)) return;
    decision = cleanDecision(d);
    state.decision = d.decision;
  });
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
  };
  const finish = async () => {
    await condition(allHandlersFinished);
    return { ...state };
  };
  const cancel = async () => {
    await db.cancelEndorsement(id);
    setStatus('ENDORSEMENT_STATUS_CANCELLED');
    // D7: a cancel after submission tells the insurer to withdraw (after the client has its answer).
    if (state.submitted) await insurer.withdrawFromInsurer(id);
    return finish();
  };

  try {
    await db.reviewEndorsement(id);
  } catch (err) {
    const type = failureType(err);
    if (type === ENDORSEMENT_GONE) {
      state.discarded = true;
      return finish();
    }
    if (type !== REVIEW_REJECTED) throw err;
    if (state.cancelRequested) return cancel();
    await db.rejectEndorsement(id, (err as ActivityFailure).cause!.message);
    setStatus('ENDORSEMENT_STATUS_REJECTED');
    return finish();
  }
  if (state.cancelRequested) return cancel();

  await db.markSentToInsurer(id);
  setStatus('ENDORSEMENT_STATUS_SENT_TO_INSURER');
  if (state.cancelRequested) return cancel();

  await submit(id, state);
  if (state.cancelRequested) return cancel();

  await waitForDecision(input.stuckAfterMs, state, () => decision !== null);
  if (state.cancelRequested || !decision) return cancel();

  const d: InsurerDecision = decision;
  if (d.decision === 'APPROVED') {
    await db.applyApproval(id, { insurerMemberId: d.insurer_member_id ?? null, uhid: d.uhid ?? null });
    setStatus('ENDORSEMENT_STATUS_APPROVED');
  } else {
    await db.rejectEndorsement(id, d.rejection_reason ?? 'Rejected by insurer');
    setStatus('ENDORSEMENT_STATUS_REJECTED');
  }
  return finish();
}

/** Submits through the adapter; a cancel arriving meanwhile abandons the call (withdraw follows). */
async function submit(id: string, state: EndorsementState): Promise<void> {
  const scope = new CancellationScope();
  const submitting = scope.run(() => insurer.submitToInsurer(id));
  state.submitted = true;
  const outcome = await Promise.race([
    submitting.then(() => 'submitted' as const),
    condition(() => state.cancelRequested).then(() => 'cancelled' as const),
  ]);
  if (outcome === 'cancelled') {
    scope.cancel();
    await submitting.catch(() => undefined);
  }
}

/** Waits for the decision or a cancel; flags EndorsementStuck after the SLA until one arrives. */
async function waitForDecision(stuckAfterMs: number, state: EndorsementState, decided: () => boolean) {
  const settled = () => decided() || state.cancelRequested;
  if (await condition(settled, stuckAfterMs)) return;
  state.stuck = true;
  upsertSearchAttributes([{ key: EndorsementStuck, value: true }]);
  log.warn('endorsement stuck: no insurer decision within the SLA', {
    endorsementId: state.endorsementId,
    stuckAfterMs,
  });
  await condition(settled);
  state.stuck = false;
  upsertSearchAttributes([{ key: EndorsementStuck, value: false }]);
  log.info('endorsement no longer stuck', { endorsementId: state.endorsementId });
}
