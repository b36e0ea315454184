import { Context } from '@temporalio/activity';
import { webhookSecretKeys } from '../config/index.js';
import { isoSql } from '../data/outbox.js';
import { openSecret } from '../domain/sealed-secrets.js';
import { ID_HEADER, SIGNATURE_HEADER, signWebhook } from '../domain/webhook-signature.js';
import { postSigned, type PostResult } from '../domain/webhook-send.js';
import { urlPolicy } from '../domain/webhook-url.js';
import { startDeliveries } from '../domain/webhook-workflow.js';
import { ATTEMPT_TIMEOUT_MS, type AttemptInput, type AttemptOutcome } from '../workflows/webhook/contract.js';
import type { ActivityDeps } from './index.js';

interface DeliveryRow {
  status: 'pending' | 'delivered' | 'failed' | 'cancelled';
  event_id: string;
  type: string;
  event_created_at: string;
  payload: Record<string, unknown>;
  url: string;
  secret: string | null;
  active: boolean;
  age_ms: string;
}

/** The body receivers get: the event's id, type and time, and its ids-and-statuses data. */
export const eventBody = (row: Pick<DeliveryRow, 'event_id' | 'type' | 'event_created_at' | 'payload'>) =>
  JSON.stringify({
    id: row.event_id,
    type: row.type,
    created_at: row.event_created_at,
    data: row.payload,
  });

/**
 * Webhook delivery activities. An attempt is recorded under (delivery, attempt number), so a
 * Temporal retry of the same attempt overwrites its record instead of adding one, and the delivery
 * row only moves while pending (a late duplicate cannot undo `delivered`).
 */
export function createWebhookActivities(deps: ActivityDeps) {
  const sql = <T>(query: string, params: unknown[] = []) =>
    deps.orm.em.getConnection().execute<T[]>(query, params);

  async function load(deliveryId: string): Promise<DeliveryRow | undefined> {
    const [row] = await sql<DeliveryRow>(
      `update webhook_deliveries d set started_at = coalesce(d.started_at, now())
         from webhook_events e, webhook_endpoints w
        where d.id = ? and e.id = d.event_id and w.id = d.endpoint_id
        returning d.status, e.id as event_id, e.type, ${isoSql('e.created_at')} as event_created_at, e.payload, w.url,
                  w.secret, w.active, (extract(epoch from now() - d.created_at) * 1000)::bigint as age_ms`,
      [deliveryId],
    );
    return row;
  }

  async function record(input: AttemptInput, result: PostResult, outcome: AttemptOutcome) {
    const rows = await sql<{ status: string }>(
      `with attempt as (
         insert into webhook_delivery_attempts (delivery_id, attempt, status_code, latency_ms, error)
         values (?, ?, ?, ?, ?)
         on conflict (delivery_id, attempt) do update
           set status_code = excluded.status_code, latency_ms = excluded.latency_ms, error = excluded.error,
               attempted_at = now()
         returning delivery_id)
       update webhook_deliveries d
          set attempts = greatest(d.attempts, ?), last_status_code = ?, last_latency_ms = ?, last_error = ?,
              status = ?, delivered_at = case when ? = 'delivered' then now() end,
              next_attempt_at = case when ? = 'pending' then now() + (? * interval '1 millisecond') end,
              updated_at = now()
        where d.id = (select delivery_id from attempt) and d.status = 'pending'
        returning d.status`,
      [
        input.deliveryId,
        input.attempt,
        result.statusCode,
        result.latencyMs,
        result.error,
        input.attempt,
        result.statusCode,
        result.latencyMs,
        result.error,
        ...Array<string>(3).fill(outcome === 'retry' ? 'pending' : outcome),
        input.retryInMs,
      ],
    );
    return rows[0] ? outcome : await currentOutcome(input.deliveryId);
  }

  async function currentOutcome(deliveryId: string): Promise<AttemptOutcome> {
    const [row] = await sql<{ status: DeliveryRow['status'] }>(
      'select status from webhook_deliveries where id = ?',
      [deliveryId],
    );
    if (!row) return 'gone';
    return row.status === 'pending' ? 'retry' : row.status;
  }

  return {
    /**
     * One attempt: POST the signed event; 2xx is delivered; otherwise `retry`, or `failed` when the
     * next attempt would fall beyond the give-up time. A removed endpoint cancels its deliveries.
     */
    async deliverWebhook(input: AttemptInput): Promise<AttemptOutcome> {
      const row = await load(input.deliveryId);
      if (!row) return 'gone';
      if (row.status !== 'pending') return row.status;
      if (!row.active || !row.secret) {
        await sql(
          "update webhook_deliveries set status = 'cancelled', updated_at = now() where id = ? and status = 'pending'",
          [input.deliveryId],
        );
        return 'cancelled';
      }
      const body = eventBody(row);
      const t = Math.floor(deps.clock.now().getTime() / 1000);
      const result = await postSigned({
        url: row.url,
        body,
        headers: {
          [SIGNATURE_HEADER]: signWebhook(openSecret(row.secret, webhookSecretKeys(deps.config)), body, t),
          [ID_HEADER]: row.event_id,
        },
        policy: urlPolicy(deps.config),
        timeoutMs: ATTEMPT_TIMEOUT_MS,
        signal: Context.current().cancellationSignal,
      });
      const delivered = result.error === null;
      const expired = Number(row.age_ms) + result.latencyMs + input.retryInMs > input.giveUpAfterMs;
      const outcome: AttemptOutcome = delivered ? 'delivered' : expired ? 'failed' : 'retry';
      return record(input, result, outcome);
    },

    /** The sweeper's pass: starts deliveries still without a workflow after the grace period. */
    async startPendingDeliveries(input: { graceMs: number }): Promise<{ started: number }> {
      const rows = await sql<{ id: string }>(
        `select id from webhook_deliveries
          where status = 'pending' and started_at is null and created_at < now() - (? * interval '1 millisecond')
          order by created_at limit 500`,
        [input.graceMs],
      );
      const started = await startDeliveries(
        deps,
        deps.orm.em,
        rows.map((r) => r.id),
      );
      if (started > 0) deps.logger.info({ started }, 'started pending webhook deliveries');
      return { started };
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
