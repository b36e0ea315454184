import { deprecatePatch, log, proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import type { SimulatedInsurerInput } from './contract.js';
import { SIMULATED_INSURER_UPDATE } from './patches.js';

/** Sending the decision: retried like any insurer call; the Update makes a retry a duplicate. */
const insurer = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * The simulated insurer (D8): after the configured delay it sends its decision to the endorsement
 * workflow as an external insurer would, through the decision Update (an activity, since a
 * workflow cannot call another's Update), and logs the answer. A durable timer, so a worker
 * restart does not lose the decision; a withdraw cancels it.
 */
export async function simulatedInsurerWorkflow(input: SimulatedInsurerInput): Promise<void> {
  if (input.delayMs > 0) await sleep(input.delayMs);
  deprecatePatch(SIMULATED_INSURER_UPDATE);
  const answer = await insurer.sendSimulatedDecision(input.endorsementId, input.decision);
  log.info('simulated insurer decision answered', { endorsementId: input.endorsementId, ...answer });
}
