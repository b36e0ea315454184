import { isoSql } from './outbox.js';
import type { EventType } from '../../domain/webhooks/events.js';
import type { SystemScope, TenantScope } from '../scope.js';

// ------------------------------------------------------------------------------ endpoints (tenant)

export interface WebhookEndpoint {
  id: string;
  url: string;
  events: string[];
  createdAt: string;
}

/**
 * Locks the client's row for the rest of the transaction and counts its active endpoints (null: no
 * such client). Two concurrent adds serialise on the lock, so a count limit checked after it holds.
 */
export async function lockActiveEndpointCount(tx: TenantScope): Promise<number | null> {
  const [client] = await tx.sql<{ active: number }>(
    `select (select count(*)::int from webhook_endpoints w where w.client_id = c.id and w.active) as active
       from clients c where c.id = ? for update`,
    [tx.clientId],
  );
  return client ? client.active : null;
}

/** A new endpoint with its sealed secret; returns its creation time (ISO). */
export async function insertWebhookEndpoint(
  tx: TenantScope,
  endpoint: { id: string; url: string; events: readonly EventType[]; sealedSecret: string },
): Promise<string> {
  const [row] = await tx.sql<{ created_at: string }>(
    `insert into webhook_endpoints (id, client_id, url, events, secret) values (?, ?, ?, string_to_array(?, ','), ?)
     returning ${isoSql('created_at')} as created_at`,
    [endpoint.id, tx.clientId, endpoint.url, endpoint.events.join(','), endpoint.sealedSecret],
  );
  return row!.created_at;
}

/** The client's active endpoints, oldest first; never their secrets. */
export async function listActiveEndpoints(scope: TenantScope): Promise<WebhookEndpoint[]> {
  const rows = await scope.sql<{ id: string; url: string; events: string[]; created_at: string }>(
    `select id, url, events, ${isoSql('created_at')} as created_at from webhook_endpoints
      where client_id = ? and active order by created_at, id`,
    [scope.clientId],
  );
  return rows.map((r) => ({ id: r.id, url: r.url, events: r.events, createdAt: r.created_at }));
}

export interface DeliveryAttemptLog {
  attempt: number;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  at: string;
}

export interface DeliveryRecord {
  id: string;
  eventId: string;
  eventType: string;
  endpointId: string;
  url: string;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastLatencyMs: number | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
  nextAttemptAt: string | null;
  attemptLog: DeliveryAttemptLog[];
}

interface DeliveryRow {
  id: string;
  event_id: string;
  type: string;
  endpoint_id: string;
  url: string;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_latency_ms: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
  next_attempt_at: string | null;
  attempt_log: DeliveryAttemptLog[];
}

/** The latest 100 deliveries of the client (or of one of its events), each with every attempt. */
export async function listRecentDeliveries(scope: TenantScope, eventId?: string): Promise<DeliveryRecord[]> {
  const rows = await scope.sql<DeliveryRow>(
    `select d.id, d.event_id, e.type, d.endpoint_id, w.url, d.status, d.attempts, d.last_status_code,
            d.last_latency_ms, d.last_error, ${isoSql('d.created_at')} as created_at,
            ${isoSql('d.delivered_at')} as delivered_at, ${isoSql('d.next_attempt_at')} as next_attempt_at,
            coalesce((select jsonb_agg(jsonb_build_object('attempt', a.attempt, 'status_code', a.status_code,
                        'latency_ms', a.latency_ms, 'error', a.error, 'at', ${isoSql('a.attempted_at')}) order by a.attempt)
                        from webhook_delivery_attempts a where a.delivery_id = d.id), '[]'::jsonb) as attempt_log
       from webhook_deliveries d
       join webhook_events e on e.id = d.event_id
       join webhook_endpoints w on w.id = d.endpoint_id
      where d.client_id = ? ${eventId ? 'and d.event_id = ?' : ''}
      order by d.created_at desc, d.id
      limit 100`,
    eventId ? [scope.clientId, eventId] : [scope.clientId],
  );
  return rows.map((r) => ({
    id: r.id,
    eventId: r.event_id,
    eventType: r.type,
    endpointId: r.endpoint_id,
    url: r.url,
    status: r.status,
    attempts: r.attempts,
    lastStatusCode: r.last_status_code,
    lastLatencyMs: r.last_latency_ms,
    lastError: r.last_error,
    createdAt: r.created_at,
    deliveredAt: r.delivered_at,
    nextAttemptAt: r.next_attempt_at,
    attemptLog: r.attempt_log,
  }));
}

// --------------------------------------------------------------------- endpoints (operator, system)

/** Every stored secret of every client (`webhook:reseal`). */
export async function listAllWebhookSecrets(scope: SystemScope): Promise<{ id: string; secret: string }[]> {
  return scope.sql<{ id: string; secret: string }>(
    'select id, secret from webhook_endpoints where secret is not null',
  );
}

/**
 * Replaces a stored secret only if it still holds the value read (compare-and-set), so a concurrent
 * remove is not undone. True when the row was rewritten.
 */
export async function replaceWebhookSecretIfUnchanged(
  scope: SystemScope,
  id: string,
  read: string,
  sealed: string,
): Promise<boolean> {
  const done = await scope.sql(
    'update webhook_endpoints set secret = ? where id = ? and secret = ? returning id',
    [sealed, id, read],
  );
  return done.length > 0;
}

/**
 * Deactivates an endpoint, erases its secret and cancels its pending deliveries, in one statement
 * (null: no active endpoint of that id). Idempotent in effect: a second remove finds it inactive.
 */
export async function removeWebhookEndpoint(
  scope: SystemScope,
  webhookId: string,
): Promise<{ id: string; cancelled: number } | null> {
  const [row] = await scope.sql<{ id: string; cancelled: number }>(
    `with removed as (
       update webhook_endpoints set active = false, secret = null, removed_at = now()
        where id = ? and active returning id),
     cancelled as (
       update webhook_deliveries set status = 'cancelled', next_attempt_at = null, updated_at = now()
        where endpoint_id in (select id from removed) and status = 'pending' returning id)
     select id, (select count(*)::int from cancelled) as cancelled from removed`,
    [webhookId],
  );
  return row ?? null;
}

// ----------------------------------------------------------------- deliveries (workflows, system)

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'cancelled';

/** What one attempt needs: the event, the endpoint and the delivery's age. */
export interface DeliveryToSend {
  status: DeliveryStatus;
  eventId: string;
  eventType: string;
  eventCreatedAt: string;
  payload: Record<string, unknown>;
  url: string;
  /** The sealed signing secret; null once the endpoint was removed. */
  secret: string | null;
  active: boolean;
  ageMs: number;
}

/**
 * Reads a delivery for an attempt and marks it started (a delivery whose workflow runs is not the
 * sweeper's), in one statement; undefined when the delivery is gone. Repeating it changes nothing.
 */
export async function openDeliveryForAttempt(
  scope: SystemScope,
  deliveryId: string,
): Promise<DeliveryToSend | undefined> {
  const [row] = await scope.sql<{
    status: DeliveryStatus;
    event_id: string;
    type: string;
    event_created_at: string;
    payload: Record<string, unknown>;
    url: string;
    secret: string | null;
    active: boolean;
    age_ms: string;
  }>(
    `update webhook_deliveries d set started_at = coalesce(d.started_at, now())
       from webhook_events e, webhook_endpoints w
      where d.id = ? and e.id = d.event_id and w.id = d.endpoint_id
      returning d.status, e.id as event_id, e.type, ${isoSql('e.created_at')} as event_created_at, e.payload, w.url,
                w.secret, w.active, (extract(epoch from now() - d.created_at) * 1000)::bigint as age_ms`,
    [deliveryId],
  );
  if (!row) return undefined;
  return {
    status: row.status,
    eventId: row.event_id,
    eventType: row.type,
    eventCreatedAt: row.event_created_at,
    payload: row.payload,
    url: row.url,
    secret: row.secret,
    active: row.active,
    ageMs: Number(row.age_ms),
  };
}

export interface AttemptRecord {
  deliveryId: string;
  attempt: number;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  /** The delivery's status after this attempt. */
  status: 'pending' | 'delivered' | 'failed';
  /** When pending: the wait before the next attempt. */
  retryInMs: number;
}

/**
 * Records an attempt under (delivery, attempt number), so a Temporal retry of the same attempt
 * overwrites its record instead of adding one, and moves the delivery only while it is pending (a
 * late duplicate cannot undo `delivered`). False when the delivery was no longer pending.
 */
export async function recordDeliveryAttempt(scope: SystemScope, a: AttemptRecord): Promise<boolean> {
  const rows = await scope.sql<{ status: string }>(
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
      a.deliveryId,
      a.attempt,
      a.statusCode,
      a.latencyMs,
      a.error,
      a.attempt,
      a.statusCode,
      a.latencyMs,
      a.error,
      ...Array<string>(3).fill(a.status),
      a.retryInMs,
    ],
  );
  return rows.length > 0;
}

/** The delivery's status (undefined: gone). */
export async function readDeliveryStatus(
  scope: SystemScope,
  deliveryId: string,
): Promise<DeliveryStatus | undefined> {
  const [row] = await scope.sql<{ status: DeliveryStatus }>(
    'select status from webhook_deliveries where id = ?',
    [deliveryId],
  );
  return row?.status;
}

/** Cancels a still-pending delivery whose endpoint was removed; a settled one is left as it is. */
export async function cancelPendingDelivery(scope: SystemScope, deliveryId: string): Promise<void> {
  await scope.sql(
    "update webhook_deliveries set status = 'cancelled', updated_at = now() where id = ? and status = 'pending'",
    [deliveryId],
  );
}

/** Pending deliveries of every client still without a workflow after `graceMs`, oldest first (500). */
export async function listUnstartedDeliveries(scope: SystemScope, graceMs: number): Promise<string[]> {
  const rows = await scope.sql<{ id: string }>(
    `select id from webhook_deliveries
      where status = 'pending' and started_at is null and created_at < now() - (? * interval '1 millisecond')
      order by created_at limit 500`,
    [graceMs],
  );
  return rows.map((r) => r.id);
}

/** Marks deliveries whose workflow was started; ones already marked keep their first time. */
export async function markDeliveriesStarted(
  scope: SystemScope,
  deliveryIds: readonly string[],
): Promise<void> {
  await scope.sql(
    'update webhook_deliveries set started_at = now() where id = any (array[?]::text[]) and started_at is null',
    [deliveryIds],
  );
}
