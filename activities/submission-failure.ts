import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { safeError } from '../db/errors.js';
import { submissionFailure } from '../domain/insurer-exchange/failures.js';
import { submissionFailingSignal, submissionFailureQuery } from '../workflows/endorsement/contract.js';

/** The report is best effort and must never hold the attempt past its heartbeat timeout (5 s). */
const REPORT_DEADLINE_MS = 3_000;

/** The fix an adapter named in its failure's details (`{ fix }`), if any. */
function namedFix(err: unknown): string | undefined {
  if (!(err instanceof ApplicationFailure)) return undefined;
  const first = err.details?.[0] as { fix?: unknown } | undefined;
  return typeof first?.fix === 'string' ? first.fix : undefined;
}

/**
 * Tells the endorsement's workflow that this submit attempt failed, so its details (the Web UI) show
 * the error and what to fix instead of only Pending Activities. Sent only when the error differs
 * from the one the workflow shows (its query answers that; a query adds nothing to the history),
 * so an insurer retried every minute for a week adds one signal per distinct error. The message is
 * the adapter's (ids, codes and the insurer's detail; a database error without its statement).
 * Never changes the attempt's outcome: a failed report is logged and the attempt fails as it would.
 * Outside an activity (direct calls in tests) and after a cancel nothing is reported.
 */
export async function reportSubmissionFailure(temporal: Client, err: unknown): Promise<void> {
  let ctx: Context;
  try {
    ctx = Context.current();
  } catch {
    return;
  }
  if (ctx.cancellationSignal.aborted || err instanceof CancelledFailure) return;
  const type = err instanceof ApplicationFailure ? (err.type ?? undefined) : undefined;
  const safe = safeError(err);
  const message = safe instanceof Error ? safe.message : String(safe);
  const failure = submissionFailure(message, type, namedFix(err), ctx.info.attempt);
  const run = ctx.info.workflowExecution;
  if (!run) return;
  const handle = temporal.workflow.getHandle(run.workflowId, run.runId);
  try {
    await temporal.withDeadline(Date.now() + REPORT_DEADLINE_MS, async () => {
      const shown = await handle.query(submissionFailureQuery);
      if (shown?.error === failure.error) return;
      await handle.signal(submissionFailingSignal, failure);
    });
  } catch (reportErr) {
    ctx.log.warn('submission failure not shown in the workflow details', {
      error: (reportErr as Error).message,
    });
  }
}
