import { z } from 'zod';
import type { AuditRow } from '../../data/audit.js';
import { AUDIT_ENTITIES } from '../../domain/audit.js';
import { outcome, pagingOut } from '../schemas/responses.js';

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
    reason: z.string().optional().meta({
      description:
        "An operator's reason, on an insurer decision an operator recorded for an endorsement the insurer had not received (actions forced_approve, forced_reject); absent otherwise",
    }),
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
    ...(row.reason === null ? {} : { reason: row.reason }),
  };
}
