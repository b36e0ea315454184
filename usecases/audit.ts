import { listAuditEvents, type AuditFilter, type AuditRow } from '../data/audit.js';
import type { CursorCodec, Page, PageRequest } from '../data/paging.js';
import type { TenantScope } from '../data/scope.js';

/** GET /v1/audit: one page of the client's trail, oldest first (D5). */
export const auditTrailPage = (
  scope: TenantScope,
  cursors: CursorCodec,
  filter: AuditFilter,
  page: PageRequest,
): Promise<Page<AuditRow>> => listAuditEvents(scope, cursors, filter, page);
