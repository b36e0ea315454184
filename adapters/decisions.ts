import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { closedVerdict } from '../domain/insurer-exchange/decisions.js';
import {
  DECISION_DUPLICATE,
  DECISION_REFUSED,
  endorsementWorkflowId,
  insurerDecisionUpdate,
  type DecisionAnswer,
  type EndorsementState,
  type InsurerDecision,
} from '../workflows/endorsement/contract.js';

const NOT_FOUND: DecisionAnswer = { result: 'refused', detail: 'not found' };

/**
 * Sends an insurer's decision exactly as every insurer path does (adapters, the insurer command,
 * the decisions API): the `decideEndorsement` Update (D14), answered synchronously as accepted,
 * duplicate or refused with the reason. The workflow's validator decides, so two senders racing
 * get one `accepted` and the other a duplicate or a refusal. A closed endorsement answers from its
 * final status; an unknown one is refused as "not found".
 */
export async function sendInsurerDecision(
  temporal: Client,
  endorsementId: string,
  decision: InsurerDecision,
): Promise<DecisionAnswer> {
  const handle = temporal.workflow.getHandle<(input: unknown) => Promise<EndorsementState>>(
    endorsementWorkflowId(endorsementId),
  );
  try {
    return await handle.executeUpdate(insurerDecisionUpdate, { args: [decision] });
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) return refusal(err);
    if (!(err instanceof WorkflowNotFoundError)) throw err;
  }
  // No running workflow: unknown, or closed (its result tells how).
  const closed = await handle.describe().then(
    () =>
      handle.result().then(
        (state) => state,
        () => null,
      ),
    (err: unknown) => {
      if (err instanceof WorkflowNotFoundError) return undefined;
      throw err;
    },
  );
  if (closed === undefined || closed?.discarded) return NOT_FOUND;
  if (!closed) return { result: 'refused', detail: 'endorsement is closed' };
  return closedVerdict(closed.status, decision.decision);
}

/** The validator's refusal as the answer; any other update failure is a fault. */
function refusal(err: WorkflowUpdateFailedError): DecisionAnswer {
  const cause = err.cause;
  if (cause instanceof ApplicationFailure && cause.type === DECISION_DUPLICATE) {
    return { result: 'duplicate', detail: cause.message };
  }
  if (cause instanceof ApplicationFailure && cause.type === DECISION_REFUSED) {
    return { result: 'refused', detail: cause.message };
  }
  throw err;
}
