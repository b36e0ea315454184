import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { clientRef } from './client.js';
import { createdAt, text } from './columns.js';
import { tenantFilter } from './tenant.js';

/** Stored first answer of a POST sent with an Idempotency-Key; (client, route, key) is unique. */
export const IdempotencyRecordSchema = defineEntity({
  name: 'IdempotencyRecord',
  tableName: 'idempotency_records',
  filters: tenantFilter,
  primaryKeys: ['clientId', 'route', 'key'],
  properties: {
    clientId: clientRef().primary(),
    route: text().primary(),
    key: text().primary(),
    requestHash: text(),
    responseStatus: p.integer().nullable(),
    responseBody: p.json<unknown>().nullable(),
    createdAt: createdAt(),
  },
});
export type IdempotencyRecord = InferEntity<typeof IdempotencyRecordSchema>;

/**
 * Who changed what and when; field names only, never personal values. `publicId` is the opaque id
 * the API shows (the bigserial would tell a client how much every other client does).
 */
export const AuditEventSchema = defineEntity({
  name: 'AuditEvent',
  tableName: 'audit_events',
  filters: tenantFilter,
  indexes: [
    { name: 'audit_events_entity', properties: ['clientId', 'entity', 'entityId', 'id'] },
    { name: 'audit_events_kind', properties: ['clientId', 'entity', 'id'] },
  ],
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    clientId: clientRef(),
    entity: text(),
    entityId: text(),
    action: text(),
    changedFields: p.array().defaultRaw(`'{}'`),
    actorTokenId: text().nullable(),
    createdAt: createdAt(),
    /** An operator's reason for an override (0029-audit-reason); none on other entries. */
    reason: text().nullable(),
    // The default as PostgreSQL stores it (from 0004-webhooks), so the schema diff reads it as equal.
    publicId: text().defaultRaw(`('aud_'::text || replace((gen_random_uuid())::text, '-'::text, ''::text))`),
  },
});
export type AuditEvent = InferEntity<typeof AuditEventSchema>;
