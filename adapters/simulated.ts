import { randomBytes } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  SIMULATED_INSURER_WORKFLOW,
  simulatedInsurerWorkflowId,
  type InsurerDecision,
  type SimulatedInsurerInput,
} from '../workflows/endorsement/contract.js';
import { sendInsurerDecision } from './decisions.js';
import type { InsurerAdapter, InsurerSubmission } from './types.js';

export interface SimulatedAdapterOptions {
  temporal: Client;
  /** Task queue of the worker that runs the simulated insurer's workflow. */
  taskQueue: string;
  /** SIMULATED_INSURER_DELAY_MS. */
  delayMs: number;
}

/**
 * The decision rule of the simulated insurer: it rejects an endorsement whose employee's own
 * identifier (the client's employee_id) starts with `REJECT` (any case), and approves every other
 * one with a generated insurer member id and UHID. A demo can thus show both outcomes through the
 * public API alone.
 */
export function simulatedDecision(submission: InsurerSubmission): InsurerDecision {
  if (/^reject/i.test(submission.employeeCode)) {
    return { decision: 'REJECTED', rejection_reason: 'Simulated insurer: rejected on request' };
  }
  const tag = randomBytes(6).toString('hex').toUpperCase();
  return { decision: 'APPROVED', insurer_member_id: `SIM-${tag}`, uhid: `UHID-${tag}` };
}

/**
 * The `simulated` adapter (D8), default for local runs: submitting starts a small workflow that
 * waits the configured delay (a durable timer) and then sends the decision. Its workflow id is
 * derived from the endorsement id, so a retried submit neither decides twice nor changes the ids.
 * With no delay there is nothing to wait for durably: the submit sends the decision itself, through
 * the same decision Update, and a workflow of its own (a start, two workflow tasks, an activity)
 * would only add round trips. A retried submit then answers duplicate (the first decision and its
 * ids stand, D8); a worker dying mid-call retries the submit, so the decision is not lost.
 */
export function createSimulatedAdapter(opts: SimulatedAdapterOptions): InsurerAdapter {
  return {
    async submit(submission) {
      const decision = simulatedDecision(submission);
      if (opts.delayMs === 0) {
        await sendInsurerDecision(opts.temporal, submission.endorsementId, decision);
        return;
      }
      const input: SimulatedInsurerInput = {
        endorsementId: submission.endorsementId,
        delayMs: opts.delayMs,
        decision,
      };
      try {
        await opts.temporal.workflow.start(SIMULATED_INSURER_WORKFLOW, {
          workflowId: simulatedInsurerWorkflowId(submission.endorsementId),
          taskQueue: opts.taskQueue,
          args: [input],
          workflowIdConflictPolicy: 'USE_EXISTING',
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
        });
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
    },
    /** The simulated insurer accepts every renewal as it arrives: recorded as sent. */
    async submitRenewal() {},
    async withdraw(submission) {
      try {
        await opts.temporal.workflow.getHandle(simulatedInsurerWorkflowId(submission.endorsementId)).cancel();
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      }
    },
  };
}
