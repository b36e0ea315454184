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
export const MEMBER_COVER_END_PASS = 'memberCoverEndPassWorkflow';
export const CD_BALANCE_CHECK_PASS = 'cdBalanceCheckPassWorkflow';
export const DEPENDENT_AGE_OUT_PASS = 'dependentAgeOutPassWorkflow';
export const RENEWAL_PASS = 'renewalPassWorkflow';

/** What the daily renewal pass did: renewal workflows started (windows opened), open ones nudged (D17). */
export interface RenewalPassResult {
  started: number;
  nudged: number;
}

/** What the daily CD pass did: policies checked, low-balance warnings it sent (new crossings). */
export interface CdBalanceCheckResult {
  checked: number;
  warned: number;
}

/**
 * What the daily cover pass did: member rows whose cover ended by date and turned inactive (D10);
 * leavers' exits still pending after their leaving date that it announced (D16).
 */
export interface CoverEndResult {
  ended: number;
  overdueExits: number;
}

/** What the daily age-out pass did: children due to leave at renewal, DELETIONs it created (D16). */
export interface AgeOutResult {
  due: number;
  removed: number;
}

/** A wall-clock time of day in a time zone, for passes that run once a day rather than every interval. */
export interface DailyAt {
  hour: number;
  minute: number;
  timezone: string;
}

export interface PeriodicSchedule {
  scheduleId: string;
  workflowType: string;
  /** What the pass recovers, shown as the Schedule's note in the Web UI. */
  note: string;
  /** Set for a daily pass; otherwise the pass runs every `everyMs` (default PASS_INTERVAL_MS). */
  daily?: DailyAt;
  everyMs?: number;
}

export const PERIODIC_SCHEDULES: readonly PeriodicSchedule[] = [
  {
    scheduleId: 'endorsement-reconciler',
    workflowType: ENDORSEMENT_RECONCILE_PASS,
    note: 'Starts the workflow of endorsements and census batches committed without one (D7, D16)',
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
    // Announcements, not cover: a delivery whose start was lost may wait ten minutes.
    everyMs: 600_000,
  },
  {
    scheduleId: 'member-cover-end',
    workflowType: MEMBER_COVER_END_PASS,
    note: 'Turns inactive the member rows whose coverage_end_date has passed (D10); announces exits pending past the leaving date (D16)',
    // Just after midnight in India (D13), so yesterday's last day of cover is over.
    daily: { hour: 0, minute: 5, timezone: 'Asia/Kolkata' },
  },
  {
    scheduleId: 'cd-balance-check',
    workflowType: CD_BALANCE_CHECK_PASS,
    note: 'Warns (policy.cd_balance_low) once per crossing when a CD balance, forecast included, is low',
    // Early morning in India, before HR systems send the day's additions.
    daily: { hour: 6, minute: 0, timezone: 'Asia/Kolkata' },
  },
  {
    scheduleId: 'dependent-age-out',
    workflowType: DEPENDENT_AGE_OUT_PASS,
    note: "Removes children over the age limit at their policy's renewal by a DELETION (D16)",
    // After the cover-end pass, so today's ended cover is already inactive.
    daily: { hour: 0, minute: 20, timezone: 'Asia/Kolkata' },
  },
  {
    scheduleId: 'policy-renewal',
    workflowType: RENEWAL_PASS,
    note: 'Opens the renewal of policies RENEWAL_LEAD_DAYS before their end; wakes open renewals for the day (D17)',
    // After the cover-end and age-out passes, so the day's ended cover is already inactive.
    daily: { hour: 0, minute: 35, timezone: 'Asia/Kolkata' },
  },
];

/**
 * Cadence: a pass every 5 minutes over rows left unstarted for more than a minute. A pass only heals
 * what a crash between a commit and its workflow start left behind (the API and the worker start
 * every workflow themselves), so it is a backstop, not a pump; every run is a row in the operator's
 * Web UI list, and at this cadence an idle namespace starts at most six maintenance runs in ten
 * minutes (two per reconciler, one sweep, one daily pass at most), where every 30 s made 60.
 */
export const PASS_INTERVAL_MS = 300_000;
export const PASS_GRACE_MS = 60_000;
