import type { EntityManager } from '@mikro-orm/postgresql';
import { webhookSecretKeys, type Config } from '../config/index.js';
import { needsResealing, openSecret, sealSecret } from '../domain/sealed-secrets.js';
import { isoSql } from '../data/outbox.js';
import { EVENT_TYPES, type EventType } from '../domain/events.js';
import { newId } from '../domain/ids.js';
import { newWebhookSecret } from '../domain/webhook-signature.js';
import { checkWebhookUrl, urlPolicy, WebhookUrlRefused, type Resolver } from '../domain/webhook-url.js';
import { AdminError } from './clients.js';

/** A client's receivers are few; more is a mistake (or a loop) rather than a need. */
export const MAX_ACTIVE_ENDPOINTS = 10;

const sqlOf =
  (em: EntityManager) =>
  <T>(query: string, params: unknown[] = []) =>
    em.getConnection().execute<T[]>(query, params, 'all', em.getTransactionContext());

export function parseEvents(list: string | undefined): EventType[] {
  if (!list) return [...EVENT_TYPES];
  const names = [...new Set(list.split(',').map((n) => n.trim()))];
  for (const name of names) {
    if (!(EVENT_TYPES as readonly string[]).includes(name)) {
      throw new AdminError(`unknown event "${name}"; known: ${EVENT_TYPES.join(', ')}`);
    }
  }
  return names as EventType[];
}

/**
 * Registers a receiver and prints its signing secret once (`webhook:add`). The URL is checked
 * against the address policy here and again at every delivery. The count limit is taken under a
 * lock on the client row, so two concurrent adds cannot pass it together.
 */
export async function addWebhook(
  em: EntityManager,
  config: Config,
  input: { clientId: string; url: string; events?: string | undefined },
  resolve?: Resolver,
) {
  const events = parseEvents(input.events);
  let url: URL;
  try {
    url = await checkWebhookUrl(input.url, urlPolicy(config), resolve);
  } catch (err) {
    throw err instanceof WebhookUrlRefused ? new AdminError(`refused: ${err.message}`) : err;
  }
  const id = newId('webhook');
  const secret = newWebhookSecret();
  return em.fork().transactional(async (tx) => {
    const sql = sqlOf(tx);
    const [client] = await sql<{ active: number }>(
      `select (select count(*)::int from webhook_endpoints w where w.client_id = c.id and w.active) as active
         from clients c where c.id = ? for update`,
      [input.clientId],
    );
    if (!client) throw new AdminError(`no client ${input.clientId}`);
    if (client.active >= MAX_ACTIVE_ENDPOINTS) {
      throw new AdminError(`the client already has ${MAX_ACTIVE_ENDPOINTS} webhooks; remove one first`);
    }
    const [row] = await sql<{ created_at: string }>(
      `insert into webhook_endpoints (id, client_id, url, events, secret) values (?, ?, ?, string_to_array(?, ','), ?)
       returning ${isoSql('created_at')} as created_at`,
      [id, input.clientId, url.href, events.join(','), sealSecret(secret, webhookSecretKeys(config))],
    );
    return {
      webhook_id: id,
      client_id: input.clientId,
      url: url.href,
      events,
      secret,
      created_at: row!.created_at,
    };
  });
}

/** `webhook:list`: the client's active receivers; never their secrets. */
export async function listWebhooks(em: EntityManager, clientId: string) {
  const rows = await sqlOf(em)<{ id: string; url: string; events: string[]; created_at: string }>(
    `select id, url, events, ${isoSql('created_at')} as created_at from webhook_endpoints
      where client_id = ? and active order by created_at, id`,
    [clientId],
  );
  return {
    client_id: clientId,
    webhooks: rows.map((r) => ({
      webhook_id: r.id,
      url: r.url,
      events: r.events,
      created_at: r.created_at,
    })),
  };
}

/**
 * `webhook:reseal`: after a new key is put first in WEBHOOK_SECRET_KEYS, rewrites every stored
 * secret sealed with another key (or stored before sealing existed) under it; then the old key can be
 * dropped. Idempotent: a secret already under the current key is left alone. Each row is rewritten
 * only if it still holds the value read (`where secret = ?`), so a concurrent remove is not undone.
 */
export async function resealWebhookSecrets(em: EntityManager, config: Config) {
  const keys = webhookSecretKeys(config);
  const rows = await sqlOf(em)<{ id: string; secret: string }>(
    'select id, secret from webhook_endpoints where secret is not null',
  );
  let resealed = 0;
  for (const row of rows.filter((r) => needsResealing(r.secret, keys))) {
    const sealed = sealSecret(openSecret(row.secret, keys), keys);
    const done = await sqlOf(em)(
      'update webhook_endpoints set secret = ? where id = ? and secret = ? returning id',
      [sealed, row.id, row.secret],
    );
    resealed += done.length;
  }
  return { key_id: keys[0]!.kid, endpoints: rows.length, resealed };
}

/**
 * `webhook:remove`: the endpoint stops receiving and its secret is erased; its pending deliveries
 * are cancelled (their workflows stop at their next attempt). The row stays for the delivery log.
 */
export async function removeWebhook(em: EntityManager, webhookId: string) {
  const [row] = await sqlOf(em)<{ id: string; cancelled: number }>(
    `with removed as (
       update webhook_endpoints set active = false, secret = null, removed_at = now()
        where id = ? and active returning id),
     cancelled as (
       update webhook_deliveries set status = 'cancelled', next_attempt_at = null, updated_at = now()
        where endpoint_id in (select id from removed) and status = 'pending' returning id)
     select id, (select count(*)::int from cancelled) as cancelled from removed`,
    [webhookId],
  );
  if (!row) throw new AdminError(`no active webhook ${webhookId}`);
  return { webhook_id: row.id, removed: true, cancelled_deliveries: row.cancelled };
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
  attempt_log: {
    attempt: number;
    status_code: number | null;
    latency_ms: number;
    error: string | null;
    at: string;
  }[];
}

/** `webhook:deliveries`: the latest 100 deliveries of a client (or of one event) with every attempt. */
export async function listDeliveries(em: EntityManager, clientId: string, eventId?: string) {
  const rows = await sqlOf(em)<DeliveryRow>(
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
    eventId ? [clientId, eventId] : [clientId],
  );
  return {
    client_id: clientId,
    deliveries: rows.map((r) => ({
      delivery_id: r.id,
      event_id: r.event_id,
      event_type: r.type,
      webhook_id: r.endpoint_id,
      url: r.url,
      status: r.status,
      attempts: r.attempts,
      last_status_code: r.last_status_code,
      last_latency_ms: r.last_latency_ms,
      last_error: r.last_error,
      created_at: r.created_at,
      delivered_at: r.delivered_at,
      next_attempt_at: r.next_attempt_at,
      attempt_log: r.attempt_log,
    })),
  };
}
