/** What a webhook endpoint can subscribe to. */
export const EVENT_TYPES = [
  'endorsement.status_changed',
  'grant.status_changed',
  /** D14: an endorsement past its insurer's SLA without a decision (announced once; never auto-rejected). */
  'endorsement.sla_breached',
  /** The CD account fell below its threshold (forecast included): once per crossing. */
  'policy.cd_balance_low',
  /** A roster's or CD statement's reconciliation finished: its counts by kind of difference (never a member's values). */
  'policy.reconciliation_completed',
  /** A census batch applied every row: ids and counts by outcome (never a person's values). */
  'endorsement_batch.completed',
  /** D17: a policy term's renewal opened, was confirmed or declined, took effect; a declined term expired. Ids and dates only. */
  'policy.renewal_drafted',
  'policy.renewal_confirmed',
  'policy.renewal_declined',
  'policy.renewed',
  'policy.expired',
  /**
   * D16: a leaver's exit still pending after the leaving date (cover outlasts it with no DELETION
   * under way): ids and the blocking endorsements' ids, once per exit and leaving date.
   */
  'employee.exit_overdue',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
