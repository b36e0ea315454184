import type { EntityManager } from '@mikro-orm/postgresql';

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
 * Writes audit entries in one statement, inside the caller's transaction when there is one, so a
 * change and its audit row commit or roll back together.
 */
export async function recordAudit(
  em: EntityManager,
  entries: AuditEntry | readonly AuditEntry[],
): Promise<void> {
  const list: readonly AuditEntry[] = isList(entries) ? entries : [entries];
  if (list.length === 0) return;
  const rows = list.map((e) => ({
    client_id: e.clientId,
    entity: e.entity,
    entity_id: e.entityId,
    action: e.action,
    changed_fields: [...e.changedFields],
    actor_token_id: e.actorTokenId,
  }));
  await em.getConnection().execute(
    `insert into audit_events (client_id, entity, entity_id, action, changed_fields, actor_token_id)
     select client_id, entity, entity_id, action, changed_fields, actor_token_id
       from jsonb_to_recordset(?::jsonb)
         as r(client_id text, entity text, entity_id text, action text, changed_fields text[], actor_token_id text)`,
    [JSON.stringify(rows)],
    'run',
    em.getTransactionContext(),
  );
}
