import { defineSignal } from '@temporalio/workflow';

/**
 * The renewal workflow's contract (D17): one workflow per policy term, its id derived from the policy
 * and the term's end, so a second start (the daily pass, an operator's command) finds the first.
 * Payloads carry ids only; dates, members and money are read from PostgreSQL by activities.
 */
export const RENEWAL_WORKFLOW = 'renewalWorkflow';
export const renewalWorkflowId = (policyId: string, termEnd: string): string =>
  `renewal-${policyId}-${termEnd}`;

export interface RenewalWorkflowInput {
  clientId: string;
  policyId: string;
}

/**
 * Wakes the workflow to look again: HR confirmed or declined, or the daily pass came by (the clock
 * may have moved, D13). The workflow reads what happened from PostgreSQL; the signal carries nothing.
 */
export const renewalNudgeSignal = defineSignal('renewalNudge');

/** Where the renewal stands, and how long until its next date by the service's clock (D13). */
export interface RenewalClock {
  renewalId: string;
  status: 'DRAFT' | 'CONFIRMED' | 'DECLINED' | 'RENEWED' | 'EXPIRED';
  /** Until the day it confirms itself (DRAFT), the new term's first day (CONFIRMED), the day after the end (DECLINED). */
  dueInMs: number;
  submitted: boolean;
}

export type RenewalOutcome = 'RENEWED' | 'EXPIRED' | 'NOT_RENEWABLE';

/** Failure type: the policy cannot be renewed (gone, not ACTIVE, renewed already); retrying changes nothing. */
export const RENEWAL_REFUSED = 'RenewalRefused';

export const renewalStartOptions = (input: RenewalWorkflowInput, termEnd: string, taskQueue: string) => ({
  workflowId: renewalWorkflowId(input.policyId, termEnd),
  taskQueue,
  args: [input] as [RenewalWorkflowInput],
  workflowIdConflictPolicy: 'USE_EXISTING' as const,
  workflowIdReusePolicy: 'REJECT_DUPLICATE' as const,
  staticSummary: `renewal of policy ${input.policyId}`,
  staticDetails: `client ${input.clientId}\n\npolicy ${input.policyId}, term ending ${termEnd}`,
});
