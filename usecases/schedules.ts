import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  type Client,
  type ScheduleDescription,
  type ScheduleUpdateOptions,
} from '@temporalio/client';
import {
  PASS_GRACE_MS,
  PASS_INTERVAL_MS,
  PERIODIC_SCHEDULES,
  type PassInput,
  type PeriodicSchedule,
} from '../workflows/periodic/contract.js';
import { passMetadata } from '../workflows/user-metadata.js';
import { ensureInsurerInboxSchedule } from './insurer-exchange/inbox-schedule.js';

export interface Cadence {
  /** Every interval pass at this cadence (tests, fault runs); unset, each Schedule's own (`everyMs`). */
  intervalMs?: number;
  graceMs: number;
}

export const DEFAULT_CADENCE: Cadence = { graceMs: PASS_GRACE_MS };

/** The loop workflows the Schedules replace (same ids); a running one is ended once. */
const LEGACY_LOOPS: Record<string, string> = {
  'endorsement-reconciler': 'endorsementReconcilerWorkflow',
  'grant-reconciler': 'grantReconcilerWorkflow',
  'webhook-sweeper': 'webhookSweeperWorkflow',
};

function scheduleOptions(
  s: PeriodicSchedule,
  taskQueue: string,
  cadence: Cadence,
): Omit<ScheduleUpdateOptions, 'state'> {
  const spec = s.daily
    ? { calendars: [{ hour: s.daily.hour, minute: s.daily.minute }], timezone: s.daily.timezone }
    : { intervals: [{ every: cadence.intervalMs ?? s.everyMs ?? PASS_INTERVAL_MS }] };
  return {
    spec,
    action: {
      type: 'startWorkflow',
      workflowType: s.workflowType,
      workflowId: `${s.scheduleId}-pass`,
      taskQueue,
      args: [{ graceMs: cadence.graceMs } satisfies PassInput],
      // A pass that hangs (Temporal or the database gone) ends, and the next tick starts afresh.
      workflowRunTimeout: '5 minutes',
      ...passMetadata(s.scheduleId, s.note),
    },
    // One pass at a time; after downtime, one catch-up pass rather than one per missed tick.
    policies: { overlap: 'SKIP', catchupWindow: '1 minute', pauseOnFailure: false },
  };
}

/**
 * Creates the reconcilers' and the sweeper's Schedules, or updates them when they exist: the same
 * ids every time, so any number of workers (and the ops command) keep exactly one of each. An
 * update keeps the Schedule's state, so a Schedule an operator paused stays paused.
 */
export async function ensurePeriodicSchedules(
  temporal: Client,
  taskQueue: string,
  cadence: Cadence = DEFAULT_CADENCE,
): Promise<void> {
  for (const s of PERIODIC_SCHEDULES) {
    const options = scheduleOptions(s, taskQueue, cadence);
    try {
      await temporal.schedule.create({ scheduleId: s.scheduleId, ...options, state: { note: s.note } });
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
      await temporal.schedule.getHandle(s.scheduleId).update((prev) => ({ ...options, state: prev.state }));
    }
    await endLegacyLoop(temporal, s.scheduleId);
  }
  await ensureInsurerInboxSchedule(temporal, taskQueue);
}

async function endLegacyLoop(temporal: Client, workflowId: string): Promise<void> {
  const handle = temporal.workflow.getHandle(workflowId);
  const running = await handle.describe().then(
    (d) => d.status.name === 'RUNNING' && d.type === LEGACY_LOOPS[workflowId],
    () => false,
  );
  if (running) await handle.terminate('replaced by the Schedule of the same id');
}

/** What `ops schedules` shows of one Schedule: ids, state and recent runs; no payloads. */
export interface ScheduleState {
  schedule_id: string;
  workflow_type: string;
  task_queue: string;
  paused: boolean;
  note: string | null;
  interval_seconds: number | null;
  /** A daily pass: its time of day and zone, e.g. `00:05 Asia/Kolkata`. */
  daily_at: string | null;
  actions_taken: number;
  next_run_at: string | null;
  recent_runs: { scheduled_at: string; workflow_id: string }[];
}

function dailyAt(d: ScheduleDescription): string | null {
  const day = d.spec.calendars?.[0];
  const [hour, minute] = [day?.hour?.[0]?.start, day?.minute?.[0]?.start];
  if (hour === undefined || minute === undefined) return null;
  const hhmm = `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`;
  return `${hhmm} ${d.spec.timezone ?? 'UTC'}`;
}

function stateOf(d: ScheduleDescription): ScheduleState {
  const every = d.spec.intervals?.[0]?.every;
  return {
    schedule_id: d.scheduleId,
    workflow_type: d.action.workflowType,
    task_queue: d.action.taskQueue,
    paused: d.state.paused,
    note: d.state.note ?? null,
    interval_seconds: typeof every === 'number' ? every / 1000 : null,
    daily_at: dailyAt(d),
    actions_taken: d.info.numActionsTaken,
    next_run_at: d.info.nextActionTimes[0]?.toISOString() ?? null,
    recent_runs: d.info.recentActions.map((a) => ({
      scheduled_at: a.scheduledAt.toISOString(),
      workflow_id: a.action.workflow.workflowId,
    })),
  };
}

/** The periodic Schedules as they stand (a missing one is reported as such, not skipped). */
export async function describePeriodicSchedules(
  temporal: Client,
): Promise<(ScheduleState | { schedule_id: string; missing: true })[]> {
  return describeSchedules(
    temporal,
    PERIODIC_SCHEDULES.map((s) => s.scheduleId),
  );
}

/** Named Schedules as they stand (a missing one is reported as such, not skipped). */
export async function describeSchedules(
  temporal: Client,
  scheduleIds: readonly string[],
): Promise<(ScheduleState | { schedule_id: string; missing: true })[]> {
  return Promise.all(
    scheduleIds.map((id) =>
      temporal.schedule
        .getHandle(id)
        .describe()
        .then(stateOf, (err: unknown) => {
          if (err instanceof ScheduleNotFoundError) return { schedule_id: id, missing: true as const };
          throw err;
        }),
    ),
  );
}
