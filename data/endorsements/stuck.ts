import type { EndorsementStatus, EndorsementType } from '../../domain/enums.js';
import { OPEN_ENDORSEMENT_STATUSES } from '../../domain/enums.js';
import type { SystemScope } from '../scope.js';

/** An endorsement as operators see it in `ops stuck` / `ops cancel`: ids, status and age only. */
export interface OperatorEndorsement {
  id: string;
  client_id: string;
  employee_id: string;
  policy_id: string;
  policy_number: string;
  type: EndorsementType;
  status: EndorsementStatus;
  created_at: Date;
}

/** `?, ?, ?`: knex binds one value per mark. */
const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

const ROW_SQL = `select e.id, e.client_id, e.employee_id, e.policy_id, p.policy_number, e.type, e.status, e.created_at
  from endorsements e join policies p on p.id = e.policy_id and p.client_id = e.client_id`;

/** Endorsements of any client by id (the ones Temporal visibility listed). */
export async function readEndorsementsAcrossClients(
  scope: SystemScope,
  ids: readonly string[],
): Promise<OperatorEndorsement[]> {
  if (ids.length === 0) return [];
  return scope.sql<OperatorEndorsement>(`${ROW_SQL} where e.id in (${marks(ids.length)})`, ids);
}

export async function readEndorsementAcrossClients(
  scope: SystemScope,
  id: string,
): Promise<OperatorEndorsement | undefined> {
  const [row] = await scope.sql<OperatorEndorsement>(`${ROW_SQL} where e.id = ?`, [id]);
  return row;
}

/** Open endorsements of every client (or of one client / policy) created before `before`, oldest first. */
export async function listOpenEndorsementsAcrossClients(
  scope: SystemScope,
  q: { before: Date; clientId?: string | undefined; policyId?: string | undefined; limit: number },
): Promise<OperatorEndorsement[]> {
  const filters = [`e.status in (${marks(OPEN_ENDORSEMENT_STATUSES.length)})`, 'e.created_at < ?'];
  const params: unknown[] = [...OPEN_ENDORSEMENT_STATUSES, q.before];
  if (q.clientId) {
    filters.push('e.client_id = ?');
    params.push(q.clientId);
  }
  if (q.policyId) {
    filters.push('e.policy_id = ?');
    params.push(q.policyId);
  }
  return scope.sql<OperatorEndorsement>(
    `${ROW_SQL} where ${filters.join(' and ')} order by e.created_at limit ?`,
    [...params, q.limit],
  );
}
