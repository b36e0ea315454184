import { memberStatusOnSql } from '../../data/member-cover.js';
import { today } from '../../domain/clock.js';
import { looksLikeId } from '../../domain/ids.js';
import { memberStatusOn } from '../../domain/member-cover.js';
import type { AppDeps } from '../deps.js';
import { forbidden, notFound } from '../errors.js';
import { cursorsFor, readPage, type KeysetQuery, type Page } from '../paging.js';
import {
  listMembersPayload,
  MEMBER_COLUMNS,
  MEMBER_EMPLOYEE_JOIN,
  presentMember,
  type MemberRow,
} from '../presenters/member.js';
import {
  getPolicyPayload,
  listPoliciesPayload,
  POLICY_DETAIL_COLUMNS,
  POLICY_JOINS,
  POLICY_LIST_COLUMNS,
  presentPolicyDetail,
  presentPolicyListItem,
  type PolicyDetailRow,
  type PolicyListRow,
} from '../presenters/policy.js';
import { route, type Handler } from '../route.js';
import { listMembersQuery, listPoliciesQuery, policyParams } from '../schemas/policies.js';
import type { ListMembersQuery, ListPoliciesQuery, PolicyParams } from '../schemas/policies.js';
import type { Auth } from '../auth/tokens.js';

/** Handler input spelled out: route()'s union of public/protected defs cannot type it contextually. */
type Req<P, Q> = Handler<P, Q, undefined, Auth>;

const policyNotFound = () => notFound('Policy Not Found');
const foreignClient = () => forbidden('Forbidden', 'client_id: is not your client');

/** `%term%` for ILIKE with the pattern characters of the term taken literally. */
const contains = (term: string) => `%${term.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;

const cursors = (deps: AppDeps) => cursorsFor(deps.config);

const pagingFields = (page: Page<unknown>) => ({
  total_count: page.total_count,
  start_cursor: page.start_cursor,
  end_cursor: page.end_cursor,
  has_previous: page.has_previous,
  has_next: page.has_next,
});

/** D5: start_date descending then id, read through policies_page / policies_status_page. */
export function policiesQuery(clientId: string, q: ListPoliciesQuery): KeysetQuery {
  const where = ['pol.client_id = ?'];
  const params: unknown[] = [clientId];
  if (q.status) {
    where.push('pol.status = ?');
    params.push(q.status);
  }
  if (q.search) {
    where.push(`(pol.policy_number ilike ? or pol.insurer_id in
      (select si.id from insurers si where si.client_id = ? and si.name ilike ?))`);
    params.push(contains(q.search), clientId, contains(q.search));
  }
  return {
    scope: `policies:${clientId}`,
    from: 'policies pol',
    where: where.join(' and '),
    params,
    select: POLICY_LIST_COLUMNS,
    join: POLICY_JOINS,
    key: [
      { sql: 'pol.start_date', type: 'date' },
      { sql: 'pol.id', type: 'text' },
    ],
    descending: true,
  };
}

/**
 * D5: employee name ignoring case, employee, the employee row before dependents, then id. The cursor
 * seals the same `lower(...)` value the order uses (policy_members_page_caseless).
 */
export function membersQuery(
  clientId: string,
  policyId: string,
  q: ListMembersQuery,
  day: string,
): KeysetQuery {
  const where = ['pm.client_id = ?', 'pm.policy_id = ?'];
  const params: unknown[] = [clientId, policyId];
  if (q.employee_id) {
    where.push('pm.employee_id = ?');
    params.push(q.employee_id);
  }
  if (q.status) {
    // D10: the status as of today, as the rows show it (cover ended by date is inactive).
    where.push(`${memberStatusOnSql('pm')} = ?`);
    params.push(day, q.status);
  }
  if (q.search) {
    // Matched on the employee, so an employee's dependents come with it; one pass over employees.
    where.push(`pm.employee_id in
      (select se.id from employees se where se.client_id = ? and (se.name ilike ? or se.email ilike ?))`);
    params.push(clientId, contains(q.search), contains(q.search));
  }
  return {
    scope: `members:${clientId}:${policyId}`,
    from: 'policy_members pm',
    where: where.join(' and '),
    params,
    select: MEMBER_COLUMNS,
    join: MEMBER_EMPLOYEE_JOIN,
    key: [
      { sql: 'lower(pm.employee_name)', type: 'text' },
      { sql: 'pm.employee_id', type: 'text' },
      { sql: 'pm.member_rank', type: 'smallint' },
      { sql: 'pm.id', type: 'text' },
    ],
    // The policy's existence rides along in the same round trip.
    extra: {
      columns: { policy_found: 'exists(select 1 from policies where client_id = ? and id = ?)' },
      params: [clientId, policyId],
    },
  };
}

export const policyRoutes = [
  route({
    method: 'GET',
    path: '/v1/policy/',
    summary: 'List policies (spec 4.2)',
    description: 'Newest start_date first; keyset paging with opaque cursors (D5).',
    scopes: ['policy.list', 'policy.all'],
    query: listPoliciesQuery,
    response: listPoliciesPayload,
    errors: [foreignClient()],
    handler: async ({ query, auth, em, deps }: Req<undefined, ListPoliciesQuery>) => {
      if (query.client_id !== auth.clientId) throw foreignClient();
      const page = await readPage<PolicyListRow>(
        em,
        cursors(deps),
        policiesQuery(auth.clientId, query),
        query,
      );
      return {
        policies: page.rows.map(presentPolicyListItem),
        ...pagingFields(page),
        message: 'Policies fetched successfully',
        success: true,
      };
    },
  }),
  route({
    method: 'GET',
    path: '/v1/policy/:policy_id',
    summary: 'Get policy (spec 4.3)',
    scopes: ['policy.get', 'policy.all'],
    params: policyParams,
    response: getPolicyPayload,
    errors: [policyNotFound()],
    handler: async ({ params, auth, em }: Req<PolicyParams, undefined>) => {
      if (!looksLikeId('policy', params.policy_id)) throw policyNotFound();
      const [row] = await em
        .getConnection()
        .execute<PolicyDetailRow[]>(
          `select ${POLICY_DETAIL_COLUMNS} from policies pol ${POLICY_JOINS} where pol.client_id = ? and pol.id = ?`,
          [auth.clientId, params.policy_id],
        );
      if (!row) throw policyNotFound();
      return { policy: presentPolicyDetail(row), message: 'Policy fetched successfully', success: true };
    },
  }),
  route({
    method: 'GET',
    path: '/v1/policy/:policy_id/members',
    summary: 'List policy members (spec 4.4)',
    description: 'By employee name, each employee before their dependents; keyset paging (D5).',
    scopes: ['policy.members.list', 'policy.all'],
    params: policyParams,
    query: listMembersQuery,
    response: listMembersPayload,
    errors: [policyNotFound()],
    handler: async ({ params, query, auth, em, deps }: Req<PolicyParams, ListMembersQuery>) => {
      if (!looksLikeId('policy', params.policy_id)) throw policyNotFound();
      const day = today(deps.clock);
      const q = membersQuery(auth.clientId, params.policy_id, query, day);
      const page = await readPage<MemberRow>(em, cursors(deps), q, query);
      if (page.extra.policy_found !== true) throw policyNotFound();
      return {
        members: page.rows.map((row) => presentMember({ ...row, status: memberStatusOn(row, day) })),
        ...pagingFields(page),
        message: 'Policy members fetched successfully',
        success: true,
      };
    },
  }),
];
