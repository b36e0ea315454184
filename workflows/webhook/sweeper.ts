import { continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import type { SweeperInput } from './contract.js';

const { startPendingDeliveries } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 3 },
});

/** Passes before the history is trimmed with continue-as-new. */
const PASSES_PER_RUN = 200;

/**
 * The outbox's relay of last resort: the activity that writes an event starts its deliveries right
 * after the commit, best effort; a crash or an unreachable Temporal in between leaves deliveries
 * without a workflow, and every pass starts those (idempotently: the workflow id is the delivery's).
 */
export async function webhookSweeperWorkflow(input: SweeperInput): Promise<void> {
  for (let pass = 0; pass < PASSES_PER_RUN; pass++) {
    try {
      await startPendingDeliveries({ graceMs: input.graceMs });
    } catch {
      // The database or Temporal is down; the next pass tries again.
    }
    await sleep(input.intervalMs);
  }
  await continueAsNew<typeof webhookSweeperWorkflow>(input);
}
