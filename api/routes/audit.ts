import type { Auth } from '../auth/tokens.js';
import { cursorsFor, readPage, type KeysetQuery } from '../paging.js';
import { AUDIT_COLUMNS, listAuditPayload, presentAuditEvent, type AuditRow } from '../presenters/audit.js';
import { route, type Handler } from '../route.js';
import { auditQuery, type AuditQuery } from '../schemas/audit.js';

type Req = Handler<undefined, AuditQuery, undefined, Auth>;

/**
 * Oldest entry first, by the table's sequence (audit_events_entity with an entity_id,
 * audit_events_kind without): a client that keeps its end_cursor picks up new entries from there.
 */
export function auditPageQuery(clientId: string, q: AuditQuery): KeysetQuery {
  const where = ['ae.client_id = ?', 'ae.entity = ?'];
  const params: unknown[] = [clientId, q.entity];
  if (q.entity_id) {
    where.push('ae.entity_id = ?');
    params.push(q.entity_id);
  }
  return {
    scope: `audit:${clientId}:${q.entity}:${q.entity_id ?? '*'}`,
    from: 'audit_events ae',
    where: where.join(' and '),
    params,
    select: AUDIT_COLUMNS,
    key: [{ sql: 'ae.id', type: 'bigint' }],
  };
}

export const auditRoutes = [
  route({
    method: 'GET',
    path: '/v1/audit',
    operationId: 'listAuditEvents',
    summary: 'Audit trail of employees, endorsements and grants',
    description:
      'Who (client, token id), what (action, changed field names) and when, oldest first; never values. ' +
      'Keyset paging as D5; without entity_id, every record of that kind.',
    scopes: ['policy.all', 'employee.all'],
    query: auditQuery,
    response: listAuditPayload,
    handler: async ({ query, auth, em, deps }: Req) => {
      const page = await readPage<AuditRow>(
        em,
        cursorsFor(deps.config),
        auditPageQuery(auth.clientId, query),
        query,
      );
      return {
        audit_events: page.rows.map(presentAuditEvent),
        total_count: page.total_count,
        start_cursor: page.start_cursor,
        end_cursor: page.end_cursor,
        has_previous: page.has_previous,
        has_next: page.has_next,
        message: 'Audit events fetched successfully',
        success: true,
      };
    },
  }),
];
