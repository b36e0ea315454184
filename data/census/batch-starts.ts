import type { SystemScope, TenantScope } from '../scope.js';

/**
 * A census batch's workflow start, recorded as endorsements' and grants' are: the commit (and the
 * reconciler) mark it once the start is acknowledged, so a batch committed by a process that died
 * before its start is found and started by the endorsement reconciler.
 */

/** Records that the batch's workflow runs. Idempotent: the first mark stays. */
export async function markCensusBatchWorkflowStarted(scope: TenantScope, id: string): Promise<void> {
  await scope.sql(
    `update census_batches set workflow_started_at = now()
      where client_id = ? and id = ? and workflow_started_at is null`,
    [scope.clientId, id],
  );
}

/** What a batch workflow's start needs, for rows of any tenant. */
export interface UnstartedCensusBatch {
  id: string;
  clientId: string;
  rowCount: number;
}

/** Every tenant's RUNNING batches still without a recorded start after the grace period, oldest first. */
export async function listUnstartedCensusBatches(
  system: SystemScope,
  graceMs: number,
): Promise<UnstartedCensusBatch[]> {
  return system.sql<UnstartedCensusBatch>(
    `select id, client_id as "clientId", row_count as "rowCount" from census_batches
      where workflow_started_at is null and status = 'BATCH_STATUS_RUNNING'
        and created_at < now() - (? * interval '1 millisecond')
      order by created_at limit 100`,
    [graceMs],
  );
}
