import type { Client } from '@temporalio/client';
import { ensurePeriodicSchedules } from '../../usecases/schedules.js';
import { PERIODIC_SCHEDULES } from '../../workflows/periodic/contract.js';
import { INSURER_INBOX_SCHEDULE_ID } from '../../workflows/insurer-inbox/contract.js';

/**
 * A worker process creates the namespace's periodic Schedules on its own task queue (worker/main.ts).
 * On a test run's server they would outlive the test that started the worker, so that test deletes
 * them afterwards (a missing one is fine).
 */
export async function deletePeriodicSchedules(temporal: Client): Promise<void> {
  for (const id of [...PERIODIC_SCHEDULES.map((s) => s.scheduleId), INSURER_INBOX_SCHEDULE_ID]) {
    await temporal.schedule
      .getHandle(id)
      .delete()
      .catch(() => undefined);
  }
}

/**
 * Creates (or updates) the periodic Schedules on this run's queue with no grace period and a cadence
 * that never ticks during a test, then triggers one run of `scheduleId` now, as an operator's
 * "Trigger" in the Web UI does. Returns the Schedule's handle.
 */
export async function triggerPass(temporal: Client, taskQueue: string, scheduleId: string) {
  await ensurePeriodicSchedules(temporal, taskQueue, { intervalMs: 3_600_000, graceMs: 0 });
  const handle = temporal.schedule.getHandle(scheduleId);
  await handle.trigger();
  return handle;
}

/**
 * A worker process also creates a cut-off Schedule per file insurer of the database (D14); a test
 * that starts one deletes those of the codes it loaded afterwards (a missing one is fine).
 */
export async function deleteCutOffSchedules(temporal: Client, codes: readonly string[]): Promise<void> {
  for (const code of codes) {
    await temporal.schedule
      .getHandle(`insurer-cut-off-${code}`)
      .delete()
      .catch(() => undefined);
  }
}
