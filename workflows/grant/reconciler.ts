import { continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import type { ReconcilerInput } from '../endorsement/contract.js';

const { reconcileUnstartedGrants } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 3 },
});

/** Passes before the history is trimmed with continue-as-new. */
const PASSES_PER_RUN = 200;

/**
 * Recovers a crash between a grant's commit and its workflow start: every pass starts the workflow
 * of each grant row still unstarted after the grace period. Starting is idempotent (the workflow id
 * is derived from the grant id), so overlapping with the API's own start is safe.
 */
export async function grantReconcilerWorkflow(input: ReconcilerInput): Promise<void> {
  for (let pass = 0; pass < PASSES_PER_RUN; pass++) {
    try {
      await reconcileUnstartedGrants({ graceMs: input.graceMs });
    } catch {
      // The database or Temporal is down; the next pass tries again.
    }
    await sleep(input.intervalMs);
  }
  await continueAsNew<typeof grantReconcilerWorkflow>(input);
}
