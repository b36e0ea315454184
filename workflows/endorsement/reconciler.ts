import { continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import type { ReconcilerInput } from './contract.js';

const { reconcileUnstartedEndorsements } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 3 },
});

/** Passes before the history is trimmed with continue-as-new. */
const PASSES_PER_RUN = 200;

/**
 * Recovers a crash between an endorsement's commit and its workflow start (D7): every pass starts
 * the workflow of each row still unstarted after the grace period. Starting is idempotent (the
 * workflow id is derived from the endorsement id), so overlapping with the API's own start is safe.
 */
export async function endorsementReconcilerWorkflow(input: ReconcilerInput): Promise<void> {
  for (let pass = 0; pass < PASSES_PER_RUN; pass++) {
    try {
      await reconcileUnstartedEndorsements({ graceMs: input.graceMs });
    } catch {
      // The database or Temporal is down; the next pass tries again.
    }
    await sleep(input.intervalMs);
  }
  await continueAsNew<typeof endorsementReconcilerWorkflow>(input);
}
