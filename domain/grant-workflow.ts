import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { GRANT_WORKFLOW, grantStartOptions } from '../workflows/grant/contract.js';
import { recordAudit } from './audit.js';
import type { StartDeps } from './endorsement-workflow.js';
import type { CreatedGrant } from './grants.js';

/** How long a request waits for Temporal before answering 503 (the client retries). */
const START_DEADLINE_MS = 4_000;

/**
 * Starts the grant's workflow and records that it runs. Idempotent as for endorsements: the
 * workflow id is the grant's, a start while it runs returns it, a start after it closed is refused
 * and counts as started. The API and the grant reconciler both start through here.
 */
export async function startGrantWorkflow(deps: StartDeps, em: EntityManager, g: CreatedGrant): Promise<void> {
  try {
    await deps.temporal.withDeadline(Date.now() + START_DEADLINE_MS, () =>
      deps.temporal.workflow.start(
        GRANT_WORKFLOW,
        grantStartOptions(
          { grantId: g.id, clientId: g.clientId, employeeId: g.employeeId },
          deps.config.TEMPORAL_TASK_QUEUE,
        ),
      ),
    );
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  await em
    .getConnection()
    .execute('update grants set workflow_started_at = now() where id = ? and workflow_started_at is null', [
      g.id,
    ]);
}

/**
 * Undoes an accepted grant whose workflow could not be started, so no request id is left without a
 * workflow. Only a row nobody has started is removed (the workflow's first activity marks it);
 * returns false when the workflow or the reconciler got to it first, in which case the grant stands.
 */
export async function discardUnstartedGrant(em: EntityManager, g: CreatedGrant): Promise<boolean> {
  return em.fork().transactional(async (tx) => {
    const rows = await tx.getConnection().execute<{ id: string }[]>(
      `delete from grants
        where id = ? and workflow_started_at is null and status = 'GRANT_STATUS_PENDING'
          and not exists (select 1 from grant_items where grant_id = grants.id)
        returning id`,
      [g.id],
      'all',
      tx.getTransactionContext(),
    );
    if (!rows[0]) return false;
    await recordAudit(tx, {
      clientId: g.clientId,
      entity: 'grant',
      entityId: g.id,
      action: 'discard',
      changedFields: ['status'],
      actorTokenId: null,
    });
    return true;
  });
}
