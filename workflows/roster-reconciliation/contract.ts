import type { DifferenceCounts, ReconciliationStatus } from '../../domain/reconciliation/roster.js';

/**
 * A roster reconciliation as a workflow. Its payloads carry ids, statuses and counts only: the
 * roster (names, dates of birth) is staged in PostgreSQL by whoever received it, or by the fetch
 * activity for an `api` insurer, and compared there.
 */
export const ROSTER_RECONCILIATION_WORKFLOW = 'rosterReconciliationWorkflow';

/** A staged roster's reconciliation: one workflow per reconciliation id. */
export const reconciliationWorkflowId = (reconciliationId: string): string =>
  `roster-reconciliation-${reconciliationId}`;

/** The monthly Schedule of one policy whose `api` insurer publishes rosters. */
export const rosterScheduleId = (policyId: string): string => `roster-reconcile-${policyId}`;
export const ROSTER_SCHEDULE_PREFIX = rosterScheduleId('');

export type ReconcileInput =
  /** A roster already staged (a file, the command). */
  | { clientId: string; reconciliationId: string }
  /** The Schedule: fetch the policy's roster from its insurer first. */
  | { policyId: string };

export interface ReconcileResult {
  reconciliation_id: string;
  policy_id: string;
  status: ReconciliationStatus;
  counts: DifferenceCounts;
}
