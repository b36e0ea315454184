import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import {
  WEBHOOK_SWEEPER_ID,
  WEBHOOK_SWEEPER_WORKFLOW,
  type SweeperInput,
} from '../workflows/webhook/contract.js';

/** Sweeper cadence: a pass every 30 s over deliveries without a workflow for more than a minute. */
export const SWEEPER_INTERVAL_MS = 30_000;
export const SWEEPER_GRACE_MS = 60_000;

/** Starts the namespace's one webhook sweeper unless it already runs (called by every worker). */
export async function ensureWebhookSweeper(
  temporal: Client,
  taskQueue: string,
  input: SweeperInput = { intervalMs: SWEEPER_INTERVAL_MS, graceMs: SWEEPER_GRACE_MS },
): Promise<void> {
  try {
    await temporal.workflow.start(WEBHOOK_SWEEPER_WORKFLOW, {
      workflowId: WEBHOOK_SWEEPER_ID,
      taskQueue,
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
