import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { webhookSecretKeys, type Config } from '../../config/index.js';
import { SystemScope } from '../../data/scope.js';
import {
  cancelPendingDelivery,
  listUnstartedDeliveries,
  markDeliveriesStarted,
  openDeliveryForAttempt,
  readDeliveryStatus,
  recordDeliveryAttempt,
  type DeliveryToSend,
} from '../../data/webhooks/webhooks.js';
import { openSecret } from '../../domain/sealed-secrets.js';
import { ID_HEADER, SIGNATURE_HEADER, signWebhook } from '../../domain/webhooks/signature.js';
import { urlPolicy } from '../../domain/webhooks/url.js';
import type { Logger } from '../../infra/logger.js';
import {
  ATTEMPT_TIMEOUT_MS,
  GIVE_UP_AFTER_MS,
  WEBHOOK_DELIVERY_WORKFLOW,
  webhookWorkflowId,
  type AttemptInput,
  type AttemptOutcome,
  type WebhookDeliveryInput,
} from '../../workflows/webhook/contract.js';
import { postSigned } from './send.js';

/** A start waits this long for Temporal; a delivery not started in time is the sweeper's. */
const START_DEADLINE_MS = 2_000;

export interface DeliveryStartDeps {
  temporal: Client;
  config: Config;
  logger: Logger;
}

export function deliveryInput(deliveryId: string, config: Config): WebhookDeliveryInput {
  return {
    deliveryId,
    schedule: {
      initialIntervalMs: config.WEBHOOK_RETRY_INITIAL_MS,
      maximumIntervalMs: Math.max(config.WEBHOOK_RETRY_MAX_MS, config.WEBHOOK_RETRY_INITIAL_MS),
      giveUpAfterMs: GIVE_UP_AFTER_MS,
    },
  };
}

async function startOne(deps: DeliveryStartDeps, deliveryId: string): Promise<void> {
  try {
    await deps.temporal.withDeadline(Date.now() + START_DEADLINE_MS, () =>
      deps.temporal.workflow.start(WEBHOOK_DELIVERY_WORKFLOW, {
        workflowId: webhookWorkflowId(deliveryId),
        taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
        args: [deliveryInput(deliveryId, deps.config)],
        workflowIdConflictPolicy: 'USE_EXISTING',
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      }),
    );
  } catch (err) {
    // Already running, or already finished: either way it is started, and never twice.
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/**
 * Starts the delivery workflows of these deliveries and marks them started; best effort (never
 * throws): what fails to start keeps started_at null and the sweeper starts it. Callers are the
 * activities right after the commit that wrote the deliveries, and the sweeper. Idempotent: the
 * workflow id is the delivery's, so a second start finds the first.
 */
export async function startDeliveries(
  deps: DeliveryStartDeps,
  em: EntityManager,
  deliveryIds: readonly string[],
): Promise<number> {
  if (deliveryIds.length === 0) return 0;
  const results = await Promise.allSettled(deliveryIds.map((id) => startOne(deps, id)));
  const started = deliveryIds.filter((_, i) => results[i]!.status === 'fulfilled');
  if (started.length < deliveryIds.length) {
    deps.logger.warn(
      { failed: deliveryIds.length - started.length },
      'webhook deliveries not started; the sweeper will start them',
    );
  }
  if (started.length === 0) return 0;
  try {
    // Deliveries of any client: the caller holds only delivery ids.
    await markDeliveriesStarted(SystemScope.of(em), started);
  } catch (err) {
    // Unmarked deliveries are started again by the sweeper, which is harmless (same workflow id).
    deps.logger.warn({ err: (err as Error).message }, 'webhook deliveries started but not marked');
  }
  return started.length;
}

/** The sweeper's pass: starts deliveries still without a workflow after the grace period. */
export async function startUnstartedDeliveries(
  deps: DeliveryStartDeps,
  em: EntityManager,
  graceMs: number,
): Promise<number> {
  const ids = await listUnstartedDeliveries(SystemScope.of(em), graceMs);
  return startDeliveries(deps, em, ids);
}

/** The body receivers get: the event's id, type and time, and its ids-and-statuses data. */
export const eventBody = (
  row: Pick<DeliveryToSend, 'eventId' | 'eventType' | 'eventCreatedAt' | 'payload'>,
) =>
  JSON.stringify({ id: row.eventId, type: row.eventType, created_at: row.eventCreatedAt, data: row.payload });

export interface AttemptDeps {
  config: Config;
  /** Unix time of the signature. */
  now: () => Date;
  /** Aborts the POST (the activity's cancellation). */
  signal?: AbortSignal;
}

/**
 * One attempt: POST the signed event; 2xx is delivered; otherwise `retry`, or `failed` when the
 * next attempt would fall beyond the give-up time. A removed endpoint cancels its deliveries.
 * Idempotency: the attempt is recorded under (delivery, attempt number) and the delivery moves only
 * while pending (data/webhooks/webhooks.ts), so a retried activity never adds an attempt or undoes an outcome.
 */
export async function attemptDelivery(
  em: EntityManager,
  deps: AttemptDeps,
  input: AttemptInput,
): Promise<AttemptOutcome> {
  // Workflows know a delivery by its id alone: system work.
  const system = SystemScope.of(em);
  const row = await openDeliveryForAttempt(system, input.deliveryId);
  if (!row) return 'gone';
  if (row.status !== 'pending') return row.status;
  if (!row.active || !row.secret) {
    await cancelPendingDelivery(system, input.deliveryId);
    return 'cancelled';
  }
  const body = eventBody(row);
  const t = Math.floor(deps.now().getTime() / 1000);
  const result = await postSigned({
    url: row.url,
    body,
    headers: {
      [SIGNATURE_HEADER]: signWebhook(openSecret(row.secret, webhookSecretKeys(deps.config)), body, t),
      [ID_HEADER]: row.eventId,
    },
    policy: urlPolicy(deps.config),
    timeoutMs: ATTEMPT_TIMEOUT_MS,
    signal: deps.signal,
  });
  const delivered = result.error === null;
  const expired = row.ageMs + result.latencyMs + input.retryInMs > input.giveUpAfterMs;
  const outcome: AttemptOutcome = delivered ? 'delivered' : expired ? 'failed' : 'retry';
  const recorded = await recordDeliveryAttempt(system, {
    deliveryId: input.deliveryId,
    attempt: input.attempt,
    statusCode: result.statusCode,
    latencyMs: result.latencyMs,
    error: result.error,
    status: outcome === 'retry' ? 'pending' : outcome,
    retryInMs: input.retryInMs,
  });
  return recorded ? outcome : currentOutcome(system, input.deliveryId);
}

/** A delivery that another attempt settled first: its outcome as it stands. */
async function currentOutcome(system: SystemScope, deliveryId: string): Promise<AttemptOutcome> {
  const status = await readDeliveryStatus(system, deliveryId);
  if (!status) return 'gone';
  return status === 'pending' ? 'retry' : status;
}
