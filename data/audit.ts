import type { AuditEntity } from '../domain/audit.js';
import { isoSql } from './webhooks/outbox.js';
import { readPage, type CursorCodec, type KeysetQuery, type Page, type PageRequest } from './paging.js';
import type { SystemScope, TenantScope } from './scope.js';
import type { Sql } from './sql.js';

/** One entry of the audit trail: who (client, token), what (action, field names), when (now). */
export interface AuditEntry {
  clientId: string;
  entity: string;
  entityId: string;
  action: string;
  /** Names of the fields that changed; never their values (personal data stays out of the trail). */
  changedFields: readonly string[];
  /** The `jti` of the token that made the change; null for admin commands. */
  actorTokenId: string | null;
}

const isList = (e: AuditEntry | readonly AuditEntry[]): e is readonly AuditEntry[] => Array.isArray(e);

/**
 * Writes audit entries in one statement, inside the scope's transaction when it is in one, so a
 * change and its audit row commit or roll back together. Through a TenantScope every entry must be
 * that client's; a SystemScope (workflows, operator commands) writes each entry's own client.
 */
export async function recordAudit(
  scope: TenantScope | SystemScope,
  entries: AuditEntry | readonly AuditEntry[],
): Promise<void> {
  const list: readonly AuditEntry[] = isList(entries) ? entries : [entries];
  if ('clientId' in scope && list.some((e) => e.clientId !== scope.clientId)) {
    throw new Error("audit entry for another client than the scope's");
  }
  await insertAudit(scope.sql, list);
}

async function insertAudit(sql: Sql, list: readonly AuditEntry[]): Promise<void> {
  if (list.length === 0) return;
  const rows = list.map((e) => ({
    client_id: e.clientId,
    entity: e.entity,
    entity_id: e.entityId,
    action: e.action,
    changed_fields: [...e.changedFields],
    actor_token_id: e.actorTokenId,
  }));
  await sql(
    `insert into audit_events (client_id, entity, entity_id, action, changed_fields, actor_token_id)
     select client_id, entity, entity_id, action, changed_fields, actor_token_id
       from jsonb_to_recordset(?::jsonb)
         as r(client_id text, entity text, entity_id text, action text, changed_fields text[], actor_token_id text)`,
    [JSON.stringify(rows)],
  );
}

/** A trail row as read; field names only: the table holds no values. */
export interface AuditRow {
  public_id: string;
  client_id: string;
  entity: AuditEntity;
  entity_id: string;
  action: string;
  changed_fields: string[];
  actor_token_id: string | null;
  /** An operator's reason for an override; null on every other entry. */
  reason: string | null;
  created_at: string;
}

/** Columns of a trail row; `ae` is audit_events. */
const AUDIT_COLUMNS = `ae.public_id, ae.client_id, ae.entity, ae.entity_id, ae.action, ae.changed_fields,
  ae.actor_token_id, ae.reason, ${isoSql('ae.created_at')} as created_at`;

export interface AuditFilter {
  entity: AuditEntity;
  entityId?: string | undefined;
}

/**
 * Oldest entry first, by the table's sequence (audit_events_entity with an entity_id,
 * audit_events_kind without): a client that keeps its end_cursor picks up new entries from there.
 */
export function auditPageQuery(clientId: string, f: AuditFilter): KeysetQuery {
  const where = ['ae.client_id = ?', 'ae.entity = ?'];
  const params: unknown[] = [clientId, f.entity];
  if (f.entityId) {
    where.push('ae.entity_id = ?');
    params.push(f.entityId);
  }
  return {
    scope: `audit:${clientId}:${f.entity}:${f.entityId ?? '*'}`,
    from: 'audit_events ae',
    where: where.join(' and '),
    params,
    select: AUDIT_COLUMNS,
    key: [{ sql: 'ae.id', type: 'bigint' }],
  };
}

/** One page of the client's trail (D5). */
export const listAuditEvents = (
  scope: TenantScope,
  codec: CursorCodec,
  filter: AuditFilter,
  req: PageRequest,
): Promise<Page<AuditRow>> => readPage<AuditRow>(scope, codec, auditPageQuery(scope.clientId, filter), req);

/**
 * D14: an operator recorded an insurer's decision for an endorsement the insurer had not received
 * (`insurer approve|reject --force --reason`): one entry on the endorsement's client's trail, with
 * the operator's reason and no token (an admin command). One statement that reads the endorsement's
 * client. Idempotent: a second call for the same endorsement and action writes nothing (a command
 * re-run after its entry was lost writes it once). Two concurrent calls may both write; the
 * workflow accepts one decision, so that needs two operators forcing the same outcome at once.
 * Returns whether an entry exists now (false: no such endorsement).
 */
export async function recordDecisionOverride(
  scope: SystemScope,
  o: { endorsementId: string; action: string; reason: string },
): Promise<boolean> {
  const rows = await scope.sql<{ id: string }>(
    `with found as (select id, client_id from endorsements where id = ?),
     written as (
       insert into audit_events (client_id, entity, entity_id, action, changed_fields, actor_token_id, reason)
       select f.client_id, 'endorsement', f.id, ?, array['status'], null, ?
         from found f
        where not exists (
          select 1 from audit_events ae
           where ae.client_id = f.client_id and ae.entity = 'endorsement' and ae.entity_id = f.id
             and ae.action = ?)
       returning entity_id)
     select id from found`,
    [o.endorsementId, o.action, o.reason, o.action],
  );
  return rows.length > 0;
}
