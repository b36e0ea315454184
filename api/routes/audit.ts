import { auditTrailPage } from '../../usecases/audit.js';
import type { Auth } from '../auth/tokens.js';
import { cursorsFor, withCursorErrors } from '../paging.js';
import { listAuditPayload, presentAuditEvent } from '../presenters/audit.js';
import { route, type Handler } from '../route.js';
import { auditQuery, type AuditQuery } from '../schemas/audit.js';

type Req = Handler<undefined, AuditQuery, undefined, Auth>;

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
    handler: async ({ query, scope, deps }: Req) => {
      const page = await withCursorErrors(
        auditTrailPage(
          scope,
          cursorsFor(deps.config),
          { entity: query.entity, entityId: query.entity_id },
          query,
        ),
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
