import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import type { ReconcileInput, ReconcileResult } from './contract.js';

/** Fetching a roster streams the insurer's whole answer into PostgreSQL: minutes, not seconds. */
const fetching = proxyActivities<Activities>({
  startToCloseTimeout: '15 minutes',
  retry: { initialInterval: '10 seconds', maximumInterval: '5 minutes', maximumAttempts: 10 },
});

/** The comparison is a few statements over the staged rows; large rosters take seconds. */
const comparing = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * Compares a staged roster with the policy's members (or first fetches it from the policy's `api`
 * insurer, when a Schedule started it) and completes the reconciliation. Every step is idempotent:
 * the fetch is keyed by this workflow's id, the comparison runs once per reconciliation.
 */
export async function rosterReconciliationWorkflow(input: ReconcileInput): Promise<ReconcileResult> {
  const target =
    'reconciliationId' in input
      ? input
      : await fetching.fetchAndStageInsurerRoster({
          policyId: input.policyId,
          runId: workflowInfo().workflowId,
        });
  return comparing.completeRosterReconciliation(target);
}
