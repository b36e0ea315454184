import type { EntityManager } from '@mikro-orm/postgresql';
import {
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
} from '@temporalio/client';
import type { Config } from '../config/index.js';
import {
  cancelEndorsementUpdate,
  durationMs,
  ENDORSEMENT_WORKFLOW,
  endorsementStartOptions,
  type EndorsementWorkflowInput,
} from '../workflows/endorsement/contract.js';
import { recordAudit } from './audit.js';
import type { CreatedEndorsement } from './endorsements.js';

/** Bounds on how long a request waits for Temporal before answering 503 (the client retries). */
const START_DEADLINE_MS = 4_000;
const CANCEL_DEADLINE_MS = 10_000;

export interface StartDeps {
  temporal: Client;
  config: Config;
}

export function workflowInput(e: CreatedEndorsement, config: Config): EndorsementWorkflowInput {
  return {
    endorsementId: e.id,
    clientId: e.clientId,
    policyId: e.policyId,
    employeeId: e.employeeId,
    type: e.type,
    stuckAfterMs: durationMs(config.ENDORSEMENT_STUCK_AFTER),
  };
}

/**
 * Starts the endorsement's workflow and records that it runs. Idempotent: the workflow id is the
 * endorsement's, a start while it runs returns it, a start after it closed is refused and counts
 * as started. The API, the cancel path and the reconciler all start through here.
 */
export async function startEndorsementWorkflow(deps: StartDeps, em: EntityManager, e: CreatedEndorsement) {
  try {
    await deps.temporal.withDeadline(Date.now() + START_DEADLINE_MS, () =>
      deps.temporal.workflow.start(
        ENDORSEMENT_WORKFLOW,
        endorsementStartOptions(workflowInput(e, deps.config), deps.config.TEMPORAL_TASK_QUEUE),
      ),
    );
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  await em
    .getConnection()
    .execute(
      'update endorsements set workflow_started_at = now() where id = ? and workflow_started_at is null',
      [e.id],
    );
}

/**
 * Asks the endorsement's workflow to cancel (D7) and waits for its answer. Update-with-start: an
 * endorsement whose workflow never started (a crash after its commit) gets it started with the
 * cancel already delivered, so the cancel is decided before anything else happens. Returns
 * normally whether the workflow accepted or refused (a decision came first): the row says which.
 */
export async function cancelThroughWorkflow(deps: StartDeps, em: EntityManager, e: CreatedEndorsement) {
  const startWorkflowOperation = new WithStartWorkflowOperation(
    ENDORSEMENT_WORKFLOW,
    endorsementStartOptions(workflowInput(e, deps.config), deps.config.TEMPORAL_TASK_QUEUE),
  );
  try {
    await deps.temporal.withDeadline(Date.now() + CANCEL_DEADLINE_MS, () =>
      deps.temporal.workflow.executeUpdateWithStart(cancelEndorsementUpdate, { startWorkflowOperation }),
    );
  } catch (err) {
    const refusedOrClosed =
      err instanceof WorkflowUpdateFailedError ||
      err instanceof WorkflowNotFoundError ||
      err instanceof WorkflowExecutionAlreadyStartedError;
    if (!refusedOrClosed) throw err;
  }
  await em
    .getConnection()
    .execute(
      'update endorsements set workflow_started_at = now() where id = ? and workflow_started_at is null',
      [e.id],
    );
}

/**
 * Undoes an accepted create whose workflow could not be started, so no endorsement is left without
 * a workflow. Only a row nobody has started is removed; returns false when the workflow (or the
 * reconciler) got to it first, in which case the endorsement stands.
 */
export async function discardUnstartedEndorsement(
  em: EntityManager,
  e: CreatedEndorsement,
): Promise<boolean> {
  return em.fork().transactional(async (tx) => {
    const rows = await tx.getConnection().execute<{ id: string }[]>(
      `delete from endorsements
          where id = ? and workflow_started_at is null and status = 'ENDORSEMENT_STATUS_PENDING'
          returning id`,
      [e.id],
      'all',
      tx.getTransactionContext(),
    );
    if (!rows[0]) return false;
    await recordAudit(tx, {
      clientId: e.clientId,
      entity: 'endorsement',
      entityId: e.id,
      action: 'discard',
      changedFields: ['status'],
      actorTokenId: null,
    });
    return true;
  });
}
