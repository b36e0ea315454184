import type { EntityManager } from '@mikro-orm/postgresql';
import { webhookSecretKeys, type Config } from '../../config/index.js';
import { MissingTenant, SystemScope, TenantScope } from '../../data/scope.js';
import {
  insertWebhookEndpoint,
  listActiveEndpoints,
  listAllWebhookSecrets,
  listRecentDeliveries,
  lockActiveEndpointCount,
  removeWebhookEndpoint,
  replaceWebhookSecretIfUnchanged,
} from '../../data/webhooks/webhooks.js';
import { needsResealing, openSecret, sealSecret } from '../../domain/sealed-secrets.js';
import { EVENT_TYPES, type EventType } from '../../domain/webhooks/events.js';
import { looksLikeId, newId } from '../../domain/ids.js';
import { newWebhookSecret } from '../../domain/webhooks/signature.js';
import { urlPolicy, WebhookUrlRefused } from '../../domain/webhooks/url.js';
import { checkWebhookUrl, type Resolver } from './address.js';
import { OperatorRefusal } from '../../domain/operator-refusal.js';

/** A client's receivers are few; more is a mistake (or a loop) rather than a need. */
export const MAX_ACTIVE_ENDPOINTS = 10;

export function parseEvents(list: string | undefined): EventType[] {
  if (!list) return [...EVENT_TYPES];
  const names = [...new Set(list.split(',').map((n) => n.trim()))];
  for (const name of names) {
    if (!(EVENT_TYPES as readonly string[]).includes(name)) {
      throw new OperatorRefusal(`unknown event "${name}"; known: ${EVENT_TYPES.join(', ')}`);
    }
  }
  return names as EventType[];
}

/** The client's scope; an id that cannot be a client id names no client. */
function tenant(em: EntityManager, clientId: string): TenantScope {
  try {
    return TenantScope.of(em, clientId);
  } catch (err) {
    throw err instanceof MissingTenant ? new OperatorRefusal(`no client ${clientId}`) : err;
  }
}

/**
 * Registers a receiver and prints its signing secret once (`webhook:add`). The URL is checked
 * against the address policy here and again at every delivery. Concurrency: the count limit is taken
 * under a lock on the client row, so two concurrent adds cannot pass it together. Idempotency: none;
 * each add is a new endpoint with its own secret.
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
    throw err instanceof WebhookUrlRefused ? new OperatorRefusal(`refused: ${err.message}`) : err;
  }
  const id = newId('webhook');
  const secret = newWebhookSecret();
  return tenant(em, input.clientId).transaction(async (tx) => {
    const active = await lockActiveEndpointCount(tx);
    if (active === null) throw new OperatorRefusal(`no client ${input.clientId}`);
    if (active >= MAX_ACTIVE_ENDPOINTS) {
      throw new OperatorRefusal(`the client already has ${MAX_ACTIVE_ENDPOINTS} webhooks; remove one first`);
    }
    const sealedSecret = sealSecret(secret, webhookSecretKeys(config));
    const createdAt = await insertWebhookEndpoint(tx, { id, url: url.href, events, sealedSecret });
    return {
      webhook_id: id,
      client_id: input.clientId,
      url: url.href,
      events,
      secret,
      created_at: createdAt,
    };
  });
}

/** `webhook:list`: the client's active receivers; never their secrets. */
export async function listWebhooks(em: EntityManager, clientId: string) {
  const rows = looksLikeId('client', clientId) ? await listActiveEndpoints(tenant(em, clientId)) : [];
  return {
    client_id: clientId,
    webhooks: rows.map((r) => ({ webhook_id: r.id, url: r.url, events: r.events, created_at: r.createdAt })),
  };
}

/**
 * `webhook:reseal`: after a new key is put first in WEBHOOK_SECRET_KEYS, rewrites every stored
 * secret sealed with another key (or stored before sealing existed) under it; then the old key can be
 * dropped. Idempotent: a secret already under the current key is left alone. Concurrency: each row is
 * rewritten only if it still holds the value read, so a concurrent remove is not undone.
 */
export async function resealWebhookSecrets(em: EntityManager, config: Config) {
  const keys = webhookSecretKeys(config);
  const system = SystemScope.of(em);
  const rows = await listAllWebhookSecrets(system);
  let resealed = 0;
  for (const row of rows.filter((r) => needsResealing(r.secret, keys))) {
    const sealed = sealSecret(openSecret(row.secret, keys), keys);
    if (await replaceWebhookSecretIfUnchanged(system, row.id, row.secret, sealed)) resealed++;
  }
  return { key_id: keys[0]!.kid, endpoints: rows.length, resealed };
}

/**
 * `webhook:remove`: the endpoint stops receiving and its secret is erased; its pending deliveries
 * are cancelled (their workflows stop at their next attempt). The row stays for the delivery log.
 * One statement; a second remove of the same endpoint is refused (it is no longer active).
 */
export async function removeWebhook(em: EntityManager, webhookId: string) {
  const row = await removeWebhookEndpoint(SystemScope.of(em), webhookId);
  if (!row) throw new OperatorRefusal(`no active webhook ${webhookId}`);
  return { webhook_id: row.id, removed: true, cancelled_deliveries: row.cancelled };
}

/** `webhook:deliveries`: the latest 100 deliveries of a client (or of one event) with every attempt. */
export async function listDeliveries(em: EntityManager, clientId: string, eventId?: string) {
  const rows = looksLikeId('client', clientId)
    ? await listRecentDeliveries(tenant(em, clientId), eventId)
    : [];
  return {
    client_id: clientId,
    deliveries: rows.map((r) => ({
      delivery_id: r.id,
      event_id: r.eventId,
      event_type: r.eventType,
      webhook_id: r.endpointId,
      url: r.url,
      status: r.status,
      attempts: r.attempts,
      last_status_code: r.lastStatusCode,
      last_latency_ms: r.lastLatencyMs,
      last_error: r.lastError,
      created_at: r.createdAt,
      delivered_at: r.deliveredAt,
      next_attempt_at: r.nextAttemptAt,
      attempt_log: r.attemptLog,
    })),
  };
}
