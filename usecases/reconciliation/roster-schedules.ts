import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client, ScheduleUpdateOptions } from '@temporalio/client';
import { activeRosterPoliciesOfAdapter } from '../../data/insurer-exchange/policies.js';
import { SystemScope } from '../../data/scope.js';
import { storedAdapterConfig } from '../../domain/insurer-exchange/adapter-settings.js';
import {
  ROSTER_RECONCILIATION_WORKFLOW,
  ROSTER_SCHEDULE_PREFIX,
  rosterScheduleId,
  type ReconcileInput,
} from '../../workflows/roster-reconciliation/contract.js';
import { CUT_OFF_TIME_ZONE } from '../insurer-exchange/files.js';
import { deleteSchedules, listScheduleIds, upsertSchedule } from '../insurer-exchange/schedules.js';

/** The hour (Asia/Kolkata) a policy's monthly reconciliation runs on its insurer's day. */
export const ROSTER_HOUR = 6;

function rosterScheduleOptions(policyId: string, dayOfMonth: number, taskQueue: string) {
  return {
    spec: { calendars: [{ dayOfMonth, hour: ROSTER_HOUR, minute: 0 }], timezone: CUT_OFF_TIME_ZONE },
    action: {
      type: 'startWorkflow' as const,
      workflowType: ROSTER_RECONCILIATION_WORKFLOW,
      // Temporal appends the scheduled time: one run (and one fetched roster) per month.
      workflowId: rosterScheduleId(policyId),
      taskQueue,
      args: [{ policyId } satisfies ReconcileInput],
    },
    // One at a time per policy; a month missed while the cluster was down runs within a day.
    policies: { overlap: 'SKIP' as const, catchupWindow: '1 day', pauseOnFailure: false },
  } satisfies Omit<ScheduleUpdateOptions, 'state'>;
}

/**
 * One Schedule per active policy whose `api` insurer publishes rosters (`roster.day_of_month` in
 * its adapter settings), `roster-reconcile-<policy id>`, monthly on that day at 06:00 Asia/Kolkata.
 * Idempotent like the cut-off Schedules (worker start, `ops schedules --create`): existing ones
 * follow the settings, those of policies that no longer qualify are deleted.
 */
export async function syncRosterSchedules(
  temporal: Client,
  em: EntityManager,
  taskQueue: string,
): Promise<{ ensured: string[]; removed: string[] }> {
  const wanted = new Set<string>();
  for (const p of await activeRosterPoliciesOfAdapter(SystemScope.of(em), 'api')) {
    const config = storedAdapterConfig(p.insurerCode, 'api', p.adapterSettings);
    const roster = config.adapter === 'api' ? config.adapterSettings.roster : undefined;
    if (!roster) continue;
    const id = rosterScheduleId(p.policyId);
    const note = `Monthly roster reconciliation of policy ${p.policyId} (insurer ${p.insurerCode}), day ${roster.day_of_month}`;
    await upsertSchedule(
      temporal,
      id,
      rosterScheduleOptions(p.policyId, roster.day_of_month, taskQueue),
      note,
    );
    wanted.add(id);
  }
  const stale = (await listScheduleIds(temporal, ROSTER_SCHEDULE_PREFIX)).filter((id) => !wanted.has(id));
  return { ensured: [...wanted].sort(), removed: await deleteSchedules(temporal, stale) };
}
