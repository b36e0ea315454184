import { z } from 'zod';
import { isoSql } from '../../data/outbox.js';
import { AUDIT_ENTITIES, type AuditEntity } from '../schemas/audit.js';
import { outcome, pagingOut } from '../schemas/responses.js';

/** Columns of a trail row; `ae` is audit_events. Field names only: the table holds no values. */
export const AUDIT_COLUMNS = `ae.public_id, ae.client_id, ae.entity, ae.entity_id, ae.action, ae.changed_fields,
  ae.actor_token_id, ${isoSql('ae.created_at')} as created_at`;

export interface AuditRow {
  public_id: string;
  client_id: string;
  entity: AuditEntity;
  entity_id: string;
  action: string;
  changed_fields: string[];
  actor_token_id: string | null;
  created_at: string;
}

export const auditEventSchema = z
  .object({
    id: z.string().meta({ example: 'aud_5f0c2e8a4b7d4c1e9a3b6d2f8e1c7a90' }),
    entity: z.enum(AUDIT_ENTITIES),
    entity_id: z.string(),
    action: z.string().meta({ example: 'update', description: 'create, update, approve, reject, …' }),
    changed_fields: z
      .array(z.string())
      .meta({ description: 'Names of the fields that changed; never values' }),
    actor: z.object({
      client_id: z.string(),
      token_id: z.string().nullable().meta({
        description: "The token's jti; null when the service itself acted (workflow, insurer, admin)",
      }),
    }),
    at: z.string().meta({ format: 'date-time' }),
  })
  .meta({ id: 'AuditEvent', description: 'One entry of the audit trail: who, what, when.' });
export type AuditEventOut = z.infer<typeof auditEventSchema>;

/** GET /v1/audit. */
export const listAuditPayload = z
  .object({
    audit_events: z.array(auditEventSchema),
    ...pagingOut,
    ...outcome('Audit events fetched successfully'),
  })
  .meta({ id: 'ListAuditEventsPayload' });

export function presentAuditEvent(row: AuditRow): AuditEventOut {
  return {
    id: row.public_id,
    entity: row.entity,
    entity_id: row.entity_id,
    action: row.action,
    changed_fields: row.changed_fields,
    actor: { client_id: row.client_id, token_id: row.actor_token_id },
    at: row.created_at,
  };
}
