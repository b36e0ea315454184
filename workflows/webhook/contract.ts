/**
 * Webhook delivery's contract: one workflow per delivery (an event for one endpoint). Its input
 * carries ids and the retry schedule only; the URL, secret and payload stay in PostgreSQL and are
 * read by the activity at each attempt.
 */
export const WEBHOOK_DELIVERY_WORKFLOW = 'webhookDeliveryWorkflow';
export const webhookWorkflowId = (deliveryId: string): string => `webhook-${deliveryId}`;

/**
 * The POSTs run on their own task queue, served by an activity-only worker with its own slots: a
 * receiver that holds every attempt for the full timeout fills those slots, never the ones the
 * endorsement and grant activities run in. The delivery workflow itself stays on the main queue.
 */
export const webhookTaskQueue = (mainTaskQueue: string): string => `${mainTaskQueue}-webhooks`;

/** How long a delivery keeps trying (issue: up to 24 h). */
export const GIVE_UP_AFTER_MS = 24 * 3_600_000;
/** One attempt's HTTP deadline; the activity's own timeout leaves room for the database writes. */
export const ATTEMPT_TIMEOUT_MS = 10_000;

export interface DeliverySchedule {
  /** Delay before the second attempt; doubles per attempt up to maximumIntervalMs, then jittered. */
  initialIntervalMs: number;
  maximumIntervalMs: number;
  /** Measured from the delivery's creation; no attempt is scheduled beyond it. */
  giveUpAfterMs: number;
}

export interface WebhookDeliveryInput {
  deliveryId: string;
  schedule: DeliverySchedule;
}

/** What one attempt tells the workflow: done (in any final state) or try again after the delay. */
export type AttemptOutcome = 'delivered' | 'retry' | 'failed' | 'cancelled' | 'gone';

export interface AttemptInput {
  deliveryId: string;
  attempt: number;
  /** The delay the workflow will sleep if this attempt fails (recorded as next_attempt_at). */
  retryInMs: number;
  giveUpAfterMs: number;
}

/** FNV-1a: a stable fraction in [0, 1) per text, deterministic for workflow replay. */
export function jitterFraction(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) / 0x1_0000_0000;
}

/**
 * The delay after failed attempt `attempt` (1-based): exponential, capped, with "equal jitter"
 * (half fixed, half spread). The spread comes from the delivery id and attempt rather than a random
 * source, so it survives replay and still scatters the deliveries that failed together (a receiver
 * that comes back is not hit by all of them at once).
 */
export function retryDelayMs(schedule: DeliverySchedule, deliveryId: string, attempt: number): number {
  const exponential = schedule.initialIntervalMs * 2 ** Math.min(attempt - 1, 40);
  const base = Math.min(schedule.maximumIntervalMs, exponential);
  return Math.round(base / 2 + (base / 2) * jitterFraction(`${deliveryId}:${attempt}`));
}
