import { getExternalWorkflowHandle, sleep } from '@temporalio/workflow';
import { endorsementWorkflowId, insurerDecisionSignal, type SimulatedInsurerInput } from './contract.js';

/**
 * The simulated insurer (D8): after the configured delay it sends its decision to the endorsement
 * workflow as an external insurer would, through the `insurerDecision` signal. A durable timer, so
 * a worker restart does not lose the decision; a withdraw cancels it.
 */
export async function simulatedInsurerWorkflow(input: SimulatedInsurerInput): Promise<void> {
  if (input.delayMs > 0) await sleep(input.delayMs);
  try {
    await getExternalWorkflowHandle(endorsementWorkflowId(input.endorsementId)).signal(
      insurerDecisionSignal,
      input.decision,
    );
  } catch {
    // The endorsement already closed (cancelled, decided): a late decision changes nothing (D8).
  }
}
