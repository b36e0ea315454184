import { Context } from '@temporalio/activity';

/** Well inside the insurer activities' heartbeat timeout (workflows/endorsement/workflow.ts). */
const HEARTBEAT_EVERY_MS = 1_000;

/**
 * Runs an insurer adapter call with heartbeats, so Temporal knows the call is alive (a dead worker
 * is noticed at the heartbeat timeout, not at the start-to-close) and can deliver a cancel to it.
 * A cancel aborts the signal handed to the adapter; the activity still ends only when the call has
 * settled, so the workflow, which waits for that end, never withdraws while a submit is in flight.
 * Outside an activity (direct calls in tests) the call runs as is.
 */
export async function heartbeating<T>(call: (signal?: AbortSignal) => Promise<T>): Promise<T> {
  let ctx: Context;
  try {
    ctx = Context.current();
  } catch {
    return call();
  }
  ctx.heartbeat();
  const beat = setInterval(() => ctx.heartbeat(), HEARTBEAT_EVERY_MS);
  try {
    return await call(ctx.cancellationSignal);
  } catch (err) {
    // The adapter gave up because of the cancel: report the cancel, not the adapter's abort error.
    if (ctx.cancellationSignal.aborted) await ctx.cancelled;
    throw err;
  } finally {
    clearInterval(beat);
  }
}
