import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { tenantFilter } from './tenant.js';

/** Stored first answer of a POST sent with an Idempotency-Key; (client, route, key) is unique. */
export const IdempotencyRecordSchema = defineEntity({
  name: 'IdempotencyRecord',
  tableName: 'idempotency_records',
  filters: tenantFilter,
  primaryKeys: ['clientId', 'route', 'key'],
  properties: {
    clientId: p.string().primary(),
    route: p.string().primary(),
    key: p.string().primary(),
    requestHash: p.string(),
    responseStatus: p.integer().nullable(),
    responseBody: p.json<unknown>().nullable(),
    createdAt: p.datetime(),
  },
});
export type IdempotencyRecord = InferEntity<typeof IdempotencyRecordSchema>;

/** Who changed what and when; field names only, never personal values. */
export const AuditEventSchema = defineEntity({
  name: 'AuditEvent',
  tableName: 'audit_events',
  filters: tenantFilter,
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    clientId: p.string(),
    entity: p.string(),
    entityId: p.string(),
    action: p.string(),
    changedFields: p.array(),
    actorTokenId: p.string().nullable(),
    createdAt: p.datetime(),
  },
});
export type AuditEvent = InferEntity<typeof AuditEventSchema>;
