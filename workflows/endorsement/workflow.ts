import { deprecatePatch, patched } from '@temporalio/workflow';
import type { EndorsementState, EndorsementWorkflowInput } from './contract.js';
import { CD_HOLD, LOCAL_DATABASE_STEPS, REVIEW_HOLD_AND_ROUTE } from './patches.js';
import { EndorsementRun } from './run.js';
import {
  cancel,
  holdFunds,
  insurerCalls,
  record,
  review,
  reviewHoldAndRoute,
  route,
  sendByAdapter,
  sendByCutOff,
} from './steps.js';

/**
 * One endorsement (D7, D14): review -> the CD account's hold (or a wait for funds) -> routing (the
 * three in one call when the balance covers the premium) -> to the insurer (a file insurer's
 * cut-off, or a submit through its adapter) -> the insurer's decision or a cancel -> APPROVED
 * (enrolment, ledger) / REJECTED / CANCELLED. The run's state and its signal, update and query
 * handlers are in run.ts, each step in steps.ts, the patches behind them in patches.ts. Every status
 * change is written by an activity and mirrored into the EndorsementStatus search attribute; a
 * decision or a cancel only records a fact that the story reads at its next step.
 */
export async function endorsementWorkflow(input: EndorsementWorkflowInput): Promise<EndorsementState> {
  const run = new EndorsementRun(input);
  const insurer = insurerCalls(run);
  deprecatePatch(LOCAL_DATABASE_STEPS);
  deprecatePatch(CD_HOLD);

  const reviewed = patched(REVIEW_HOLD_AND_ROUTE) ? await reviewHoldAndRoute(run) : await review(run);
  if (reviewed === 'gone' || reviewed === 'rejected') return run.finish();
  if (reviewed === 'cancel') return cancel(run, insurer);
  // Held and routed by the review's call, unless the balance was short (or the run predates that).
  if (reviewed === 'reviewed') {
    if (!(await holdFunds(run))) return cancel(run, insurer);
    await route(run);
  }

  if (run.fileInsurer) await sendByCutOff(run);
  else await sendByAdapter(run, insurer);

  if (run.state.cancelRequested || !run.decision) return cancel(run, insurer);
  return record(run, run.decision);
}
