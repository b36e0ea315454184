import { condition, setHandler } from '@temporalio/workflow';
import { insurerDecisionUpdate, type InsurerDecision } from '../../workflows/endorsement/contract.js';

/**
 * The decisions peer's workflow (bench/decisions.ts): the least a workflow can be that takes the
 * decision Update: it records the decision, answers accepted, and ends. No validator, no activity,
 * no timer, no search attribute.
 */
export async function trivialDecisionWorkflow(): Promise<InsurerDecision> {
  let decision: InsurerDecision | null = null;
  setHandler(insurerDecisionUpdate, (d) => {
    decision = d;
    return { result: 'accepted', detail: `${d.decision} recorded` };
  });
  await condition(() => decision !== null);
  return decision!;
}
