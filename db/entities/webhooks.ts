import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { clientRef } from './client.js';
import { createdAt, ref, text, updatedAt } from './columns.js';
import { tenantFilter } from './tenant.js';

/**
 * A client's webhook receiver. `secret` signs deliveries, so it is stored as issued and cleared when
 * the endpoint is removed (the database holds `active` and `secret` in step).
 */
export const WebhookEndpointSchema = defineEntity({
  name: 'WebhookEndpoint',
  tableName: 'webhook_endpoints',
  filters: tenantFilter,
  indexes: [
    {
      name: 'webhook_endpoints_client',
      expression: 'create index webhook_endpoints_client on webhook_endpoints (client_id) where active',
    },
  ],
  checks: [{ name: 'webhook_endpoints_secret', expression: 'active = (secret is not null)' }],
  properties: {
    id: text().primary(),
    clientId: clientRef(),
    url: text(),
    events: p.array(),
    secret: text().nullable(),
    active: p.boolean().default(true),
    createdAt: createdAt(),
    removedAt: p.datetime().nullable(),
  },
});
export type WebhookEndpoint = InferEntity<typeof WebhookEndpointSchema>;

/**
 * The outbox: one row per status change, written with the change. `dedupeKey` (type, entity, new
 * status) makes a retried write a no-op; `payload` holds ids and statuses only.
 */
export const WebhookEventSchema = defineEntity({
  name: 'WebhookEvent',
  tableName: 'webhook_events',
  filters: tenantFilter,
  properties: {
    id: text().primary(),
    clientId: clientRef(),
    type: text(),
    dedupeKey: text().unique('webhook_events_dedupe_key_key'),
    payload: p.json<Record<string, unknown>>(),
    createdAt: createdAt(),
  },
});
export type WebhookEvent = InferEntity<typeof WebhookEventSchema>;

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'cancelled'] as const;

/** One event for one subscribed endpoint, driven by its own workflow; `startedAt` null = none yet. */
export const WebhookDeliverySchema = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  filters: tenantFilter,
  uniques: [{ name: 'webhook_deliveries_event_id_endpoint_id_key', properties: ['eventId', 'endpointId'] }],
  indexes: [
    {
      name: 'webhook_deliveries_unstarted',
      expression:
        'create index webhook_deliveries_unstarted on webhook_deliveries (created_at) ' +
        "where status = 'pending' and started_at is null",
    },
    { name: 'webhook_deliveries_client', properties: ['clientId', 'createdAt'] },
    {
      name: 'webhook_deliveries_endpoint',
      expression:
        "create index webhook_deliveries_endpoint on webhook_deliveries (endpoint_id) where status = 'pending'",
    },
  ],
  properties: {
    id: text().primary(),
    eventId: ref(WebhookEventSchema, 'event_id').deleteRule('cascade'),
    endpointId: ref(WebhookEndpointSchema, 'endpoint_id'),
    clientId: clientRef(),
    status: p
      .enum([...WEBHOOK_DELIVERY_STATUSES])
      .columnType('text')
      .default('pending'),
    attempts: p.integer().default(0),
    lastStatusCode: p.integer().nullable(),
    lastLatencyMs: p.integer().nullable(),
    lastError: text().nullable(),
    startedAt: p.datetime().nullable(),
    deliveredAt: p.datetime().nullable(),
    nextAttemptAt: p.datetime().nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});
export type WebhookDelivery = InferEntity<typeof WebhookDeliverySchema>;

/** Every POST of a delivery with its response code and latency. Not tenant-scoped: read by operators. */
export const WebhookDeliveryAttemptSchema = defineEntity({
  name: 'WebhookDeliveryAttempt',
  tableName: 'webhook_delivery_attempts',
  primaryKeys: ['deliveryId', 'attempt'],
  properties: {
    deliveryId: ref(WebhookDeliverySchema, 'delivery_id').deleteRule('cascade').primary(),
    attempt: p.integer().primary(),
    statusCode: p.integer().nullable(),
    latencyMs: p.integer(),
    error: text().nullable(),
    attemptedAt: createdAt(),
  },
});
export type WebhookDeliveryAttempt = InferEntity<typeof WebhookDeliveryAttemptSchema>;
