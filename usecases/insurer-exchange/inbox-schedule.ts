import type { EntityManager } from '@mikro-orm/postgresql';
import { ScheduleAlreadyRunning, type Client, type ScheduleUpdateOptions } from '@temporalio/client';
import { fileInsurerCodes } from '../../data/insurer-exchange/response-files.js';
import { SystemScope } from '../../data/scope.js';
import {
  INSURER_INBOX_INTERVAL_MS,
  INSURER_INBOX_PASS,
  INSURER_INBOX_SCHEDULE_ID,
} from '../../workflows/insurer-inbox/contract.js';
import { passMetadata } from '../../workflows/user-metadata.js';

const NOTE = "Ingests file insurers' response files from their inboxes (D14)";

/** Every insurer code loaded with the `file` adapter: the inboxes a poll reads. */
export function listFileInsurerCodes(em: EntityManager): Promise<string[]> {
  return fileInsurerCodes(SystemScope.of(em));
}

function inboxScheduleOptions(taskQueue: string, intervalMs: number): Omit<ScheduleUpdateOptions, 'state'> {
  return {
    spec: { intervals: [{ every: intervalMs }] },
    action: {
      type: 'startWorkflow',
      workflowType: INSURER_INBOX_PASS,
      workflowId: `${INSURER_INBOX_SCHEDULE_ID}-pass`,
      taskQueue,
      args: [],
      workflowRunTimeout: '1 hour',
      ...passMetadata(INSURER_INBOX_SCHEDULE_ID, NOTE),
    },
    // One poll at a time; after downtime one catch-up poll, not one per missed tick.
    policies: { overlap: 'SKIP', catchupWindow: '1 minute', pauseOnFailure: false },
  };
}

/**
 * D14: the `insurer-inbox` Schedule, every 5 minutes: one pass ingests every file insurer's inbox.
 * Created or updated under the same id by every worker start (ensurePeriodicSchedules), keeping an
 * operator's pause.
 */
export async function ensureInsurerInboxSchedule(
  temporal: Client,
  taskQueue: string,
  intervalMs = INSURER_INBOX_INTERVAL_MS,
): Promise<void> {
  const options = inboxScheduleOptions(taskQueue, intervalMs);
  try {
    await temporal.schedule.create({
      scheduleId: INSURER_INBOX_SCHEDULE_ID,
      ...options,
      state: { note: NOTE },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await temporal.schedule
      .getHandle(INSURER_INBOX_SCHEDULE_ID)
      .update((prev) => ({ ...options, state: prev.state }));
  }
}
