import type { InsurerAssignment } from '../../domain/insurer-exchange/decisions.js';
import { isoSql, outboxSql } from '../webhooks/outbox.js';
import type { SystemScope } from '../scope.js';

/**
 * The endorsement's insurer and the submission time (now, by the database's clock: read right after
 * the SENT_TO_INSURER change); undefined for an unknown id.
 */
export async function readEndorsementInsurer(
  system: SystemScope,
  endorsementId: string,
): Promise<InsurerAssignment | undefined> {
  const [row] = await system.sql<{ insurer_id: string; submitted_at: string; sla_days: number | null }>(
    `select p.insurer_id, ${isoSql('now()')} as submitted_at, (i.adapter_settings->>'sla_days')::int as sla_days
       from endorsements e join policies p on p.id = e.policy_id join insurers i on i.id = p.insurer_id
      where e.id = ?`,
    [endorsementId],
  );
  return row
    ? { insurerId: row.insurer_id, submittedAt: row.submitted_at, slaDays: row.sla_days }
    : undefined;
}

/**
 * D14: announces that an endorsement still SENT_TO_INSURER is past its insurer's SLA: the
 * `endorsement.sla_breached` event and its deliveries, with an audit entry, in one statement. Ids
 * only in the payload. Idempotent: the event's dedupe key (type, endorsement, SLA_BREACHED) makes a
 * retried activity record nothing new; an endorsement no longer SENT_TO_INSURER records nothing.
 * Returns the deliveries to start, or undefined for an unknown id.
 */
export async function recordEndorsementSlaBreach(
  system: SystemScope,
  endorsementId: string,
  slaDueAt: string,
): Promise<{ deliveries: string[] } | undefined> {
  const outbox = outboxSql('change', 'endorsement.sla_breached');
  const [row] = await system.sql<{ found: boolean; deliveries: string[] }>(
    `with breached as (
       select e.id, e.client_id, e.policy_id, e.employee_id, e.status, p.insurer_id
         from endorsements e join policies p on p.id = e.policy_id
        where e.id = ? and e.status = 'ENDORSEMENT_STATUS_SENT_TO_INSURER'),
     change as (
       select client_id, id as entity_id, 'SLA_BREACHED'::text as to_status,
              jsonb_build_object('endorsement_id', id, 'policy_id', policy_id, 'employee_id', employee_id,
                'insurer_id', insurer_id, 'status', status, 'sla_due_at', ?::text) as data
         from breached),
     ${outbox.sql},
     audited as (
       insert into audit_events (client_id, entity, entity_id, action, changed_fields)
       select e.client_id, 'endorsement', s.id, 'sla_breached', '{}'::text[]
         from outbox_event e join breached s on s.client_id = e.client_id)
     select exists (select 1 from endorsements where id = ?) as found,
            array(select id from outbox_deliveries) as deliveries`,
    [endorsementId, slaDueAt, ...outbox.params, endorsementId],
  );
  return row?.found ? { deliveries: row.deliveries } : undefined;
}
