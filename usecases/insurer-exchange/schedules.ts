import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  type Client,
  type ScheduleUpdateOptions,
} from '@temporalio/client';
import type { EntityManager } from '@mikro-orm/postgresql';
import { listFileInsurers, listNonFileInsurerCodes } from '../../data/insurer-exchange/cut-off.js';
import { SystemScope } from '../../data/scope.js';
import { storedAdapterConfig } from '../../domain/insurer-exchange/adapter-settings.js';
import {
  cutOffScheduleId,
  INSURER_CUT_OFF_WORKFLOW,
  type CutOffInput,
} from '../../workflows/insurer-cut-off/contract.js';
import { CUT_OFF_TIME_ZONE } from './files.js';
import { cutOffMetadata } from '../../workflows/user-metadata.js';

const PREFIX = cutOffScheduleId('');

/** Each file insurer code and its daily cut-off (one platform row per code, D12). */
async function cutOffTimes(em: EntityManager): Promise<Map<string, string>> {
  const times = new Map<string, string>();
  for (const row of await listFileInsurers(SystemScope.of(em))) {
    const config = storedAdapterConfig(row.code, 'file', row.adapterSettings);
    if (config.adapter === 'file') times.set(row.code, config.adapterSettings.cut_off_time);
  }
  return times;
}

function scheduleOptions(code: string, cutOffTime: string, taskQueue: string) {
  const [hour, minute] = cutOffTime.split(':').map(Number) as [number, number];
  return {
    spec: { calendars: [{ hour, minute }], timezone: CUT_OFF_TIME_ZONE },
    action: {
      type: 'startWorkflow' as const,
      workflowType: INSURER_CUT_OFF_WORKFLOW,
      // Temporal appends the scheduled time: one workflow id per cut-off instant.
      workflowId: cutOffScheduleId(code),
      taskQueue,
      args: [{ insurerCode: code } satisfies CutOffInput],
      ...cutOffMetadata(code, null),
    },
    // Cut-offs claim disjoint endorsements, so one still retrying a down SFTP server never blocks
    // the next day's. After downtime, a cut-off missed within the hour still runs.
    policies: { overlap: 'ALLOW_ALL' as const, catchupWindow: '1 hour', pauseOnFailure: false },
  } satisfies Omit<ScheduleUpdateOptions, 'state'>;
}

export interface InsurerScheduleSync {
  /** `insurer-cut-off-<CODE>` Schedules created or updated, with their cut-off time. */
  ensured: { schedule_id: string; cut_off_time: string }[];
  /** Schedules of codes that no longer have a file insurer, deleted. */
  removed: string[];
}

/**
 * D14: one Schedule per file insurer code, `insurer-cut-off-<CODE>`, daily at its cut_off_time in
 * Asia/Kolkata. Idempotent, like the periodic Schedules (every worker at start, `ops schedules
 * --create`, and `admin load` run it): an existing Schedule is updated to the current settings (its
 * paused state kept), and one whose code is no longer a file insurer is deleted.
 */
export async function syncInsurerCutOffSchedules(
  temporal: Client,
  em: EntityManager,
  taskQueue: string,
): Promise<InsurerScheduleSync> {
  const times = await cutOffTimes(em);
  const out: InsurerScheduleSync = { ensured: [], removed: [] };
  for (const [code, time] of times) {
    const scheduleId = cutOffScheduleId(code);
    const options = scheduleOptions(code, time, taskQueue);
    const note = `Daily cut-off of file insurer ${code} at ${time} ${CUT_OFF_TIME_ZONE} (D14)`;
    await upsertSchedule(temporal, scheduleId, options, note);
    out.ensured.push({ schedule_id: scheduleId, cut_off_time: time });
  }
  // Codes loaded with another adapter now (read from the database, so a change just loaded is seen
  // at once), and any other Schedule of the prefix whose code is gone (the listing is eventual).
  const stale = new Set((await listNonFileInsurerCodes(SystemScope.of(em))).map(cutOffScheduleId));
  for (const id of await listCutOffScheduleIds(temporal)) {
    if (!times.has(id.slice(PREFIX.length))) stale.add(id);
  }
  out.removed.push(...(await deleteSchedules(temporal, stale)));
  return out;
}

/** Creates a Schedule, or updates it to these options; paused stays paused, the note follows. */
export async function upsertSchedule(
  temporal: Client,
  scheduleId: string,
  options: Omit<ScheduleUpdateOptions, 'state'>,
  note: string,
): Promise<void> {
  try {
    await temporal.schedule.create({ scheduleId, ...options, state: { note } });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await temporal.schedule
      .getHandle(scheduleId)
      .update((prev) => ({ ...options, state: { ...prev.state, note } }));
  }
}

/** Deletes these Schedules; returns those that existed. */
export async function deleteSchedules(temporal: Client, ids: Iterable<string>): Promise<string[]> {
  const removed: string[] = [];
  for (const id of ids) {
    const deleted = await temporal.schedule
      .getHandle(id)
      .delete()
      .then(
        () => true,
        (err: unknown) => {
          if (err instanceof ScheduleNotFoundError) return false;
          throw err;
        },
      );
    if (deleted) removed.push(id);
  }
  return removed;
}

/** The ids of every Schedule in the namespace whose id starts with `prefix`, sorted. */
export async function listScheduleIds(temporal: Client, prefix: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const s of temporal.schedule.list()) {
    if (s.scheduleId.startsWith(prefix)) ids.push(s.scheduleId);
  }
  return ids.sort();
}

/** The ids of every insurer cut-off Schedule in the namespace. */
export const listCutOffScheduleIds = (temporal: Client): Promise<string[]> =>
  listScheduleIds(temporal, PREFIX);
