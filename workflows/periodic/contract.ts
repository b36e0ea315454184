/**
 * Periodic work: each pass is a one-shot workflow started by a Temporal Schedule (one per
 * namespace, created idempotently by every worker at start and by `ops schedules --create`). The
 * Schedule gives the cadence, pausing and the run history (Web UI, `temporal schedule list`); a
 * failed pass fails its run, visibly, and the next tick tries again.
 */
export interface PassInput {
  /** A row younger than this may still be starting in its API request or activity; leave it alone. */
  graceMs: number;
}

export interface PassResult {
  /** Workflows this pass started. */
  started: number;
}

export const ENDORSEMENT_RECONCILE_PASS = 'endorsementReconcilePassWorkflow';
export const GRANT_RECONCILE_PASS = 'grantReconcilePassWorkflow';
export const WEBHOOK_SWEEP_PASS = 'webhookSweepPassWorkflow';

export interface PeriodicSchedule {
  scheduleId: string;
  workflowType: string;
  /** What the pass recovers, shown as the Schedule's note in the Web UI. */
  note: string;
}

export const PERIODIC_SCHEDULES: readonly PeriodicSchedule[] = [
  {
    scheduleId: 'endorsement-reconciler',
    workflowType: ENDORSEMENT_RECONCILE_PASS,
    note: 'Starts the workflow of endorsements committed without one (D7)',
  },
  {
    scheduleId: 'grant-reconciler',
    workflowType: GRANT_RECONCILE_PASS,
    note: 'Starts the workflow of grants committed without one (D9)',
  },
  {
    scheduleId: 'webhook-sweeper',
    workflowType: WEBHOOK_SWEEP_PASS,
    note: 'Starts webhook deliveries whose start was lost after the commit',
  },
];

/** Cadence: a pass every 30 s over rows left unstarted for more than a minute. */
export const PASS_INTERVAL_MS = 30_000;
export const PASS_GRACE_MS = 60_000;
