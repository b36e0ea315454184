import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  endorsementStateQuery,
  endorsementWorkflowId,
  insurerDecisionSignal,
  isOpenStatus,
  type EndorsementState,
  type InsurerDecision,
} from '../workflows/endorsement/contract.js';

/** A decision the insurer side cannot send: unknown endorsement, or one that is already decided. */
export class DecisionRefused extends Error {
  constructor(
    readonly reason: 'UNKNOWN_ENDORSEMENT' | 'ALREADY_DECIDED',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Sends an insurer's decision exactly as an adapter does: the `insurerDecision` signal to the
 * endorsement's workflow (D8). Checks first so an operator gets a clear answer; the workflow itself
 * still ignores a duplicate or late decision, so a race between two senders changes nothing.
 */
export async function sendInsurerDecision(
  temporal: Client,
  endorsementId: string,
  decision: InsurerDecision,
): Promise<void> {
  const handle = temporal.workflow.getHandle<(input: unknown) => Promise<EndorsementState>>(
    endorsementWorkflowId(endorsementId),
  );
  let running: boolean;
  try {
    running = (await handle.describe()).status.name === 'RUNNING';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) {
      throw new DecisionRefused('UNKNOWN_ENDORSEMENT', `unknown endorsement ${endorsementId}`);
    }
    throw err;
  }
  const state = running ? await handle.query(endorsementStateQuery) : await handle.result().catch(() => null);
  if (!running || !state || state.decision || state.cancelRequested || !isOpenStatus(state.status)) {
    const applying = state && isOpenStatus(state.status) && state.decision;
    const status = applying ? `${state.decision} (being applied)` : (state?.status ?? 'closed');
    throw new DecisionRefused(
      'ALREADY_DECIDED',
      `endorsement ${endorsementId} is already decided: ${status}`,
    );
  }
  await handle.signal(insurerDecisionSignal, decision);
}
