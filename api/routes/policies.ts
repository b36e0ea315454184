import { cdLedgerPage, memberPage, policyDetail, policyPage } from '../../usecases/policies.js';
import { listCdLedgerPayload, presentCdLedgerEntry } from '../presenters/cd-ledger.js';
import type { AppDeps } from '../deps.js';
import { forbidden, notFound } from '../errors.js';
import { cursorsFor, withCursorErrors, pagingFields } from '../paging.js';
import { listMembersPayload, presentMember } from '../presenters/member.js';
import {
  getPolicyPayload,
  listPoliciesPayload,
  presentPolicyDetail,
  presentPolicyListItem,
} from '../presenters/policy.js';
import { route, type Handler } from '../route.js';
import { cdLedgerQuery, listMembersQuery, listPoliciesQuery, policyParams } from '../schemas/policies.js';
import type {
  CdLedgerQuery,
  ListMembersQuery,
  ListPoliciesQuery,
  PolicyParams,
} from '../schemas/policies.js';
import type { Auth } from '../auth/tokens.js';
import { today } from '../../domain/clock.js';

/** Handler input spelled out: route()'s union of public/protected defs cannot type it contextually. */
type Req<P, Q> = Handler<P, Q, undefined, Auth>;

const policyNotFound = () => notFound('Policy Not Found');
const foreignClient = () => forbidden('Forbidden', 'client_id: is not your client');

const cursors = (deps: AppDeps) => cursorsFor(deps.config);

export const policyRoutes = [
  route({
    method: 'GET',
    path: '/v1/policy/',
    operationId: 'listPolicies',
    summary: 'List policies (spec 4.2)',
    description: 'Newest start_date first; keyset paging with opaque cursors (D5).',
    scopes: ['policy.list', 'policy.all'],
    query: listPoliciesQuery,
    response: listPoliciesPayload,
    errors: [foreignClient()],
    handler: async ({ query, auth, scope, deps }: Req<undefined, ListPoliciesQuery>) => {
      if (query.client_id !== auth.clientId) throw foreignClient();
      const filter = { status: query.status, search: query.search };
      const page = await withCursorErrors(policyPage(scope, cursors(deps), filter, query));
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
    operationId: 'getPolicy',
    summary: 'Get policy (spec 4.3)',
    scopes: ['policy.get', 'policy.all'],
    params: policyParams,
    response: getPolicyPayload,
    errors: [policyNotFound()],
    handler: async ({ params, scope }: Req<PolicyParams, undefined>) => {
      const row = await policyDetail(scope, params.policy_id);
      if (!row) throw policyNotFound();
      return { policy: presentPolicyDetail(row), message: 'Policy fetched successfully', success: true };
    },
  }),
  route({
    method: 'GET',
    path: '/v1/policy/:policy_id/members',
    operationId: 'listPolicyMembers',
    summary: 'List policy members (spec 4.4)',
    description: 'By employee name, each employee before their dependents; keyset paging (D5).',
    scopes: ['policy.members.list', 'policy.all'],
    params: policyParams,
    query: listMembersQuery,
    response: listMembersPayload,
    errors: [policyNotFound()],
    handler: async ({ params, query, scope, deps }: Req<PolicyParams, ListMembersQuery>) => {
      const filter = {
        today: today(deps.clock),
        employeeId: query.employee_id,
        status: query.status,
        search: query.search,
      };
      const page = await withCursorErrors(memberPage(scope, cursors(deps), params.policy_id, filter, query));
      if (!page) throw policyNotFound();
      return {
        members: page.rows.map(presentMember),
        ...pagingFields(page),
        message: 'Policy members fetched successfully',
        success: true,
      };
    },
  }),
  route({
    method: 'GET',
    path: '/v1/policy/:policy_id/cd-ledger',
    operationId: 'listPolicyCdLedger',
    summary: "List the policy's CD account entries",
    description:
      'Top-ups, holds, releases, debits, credits and adjustments in posting order, each with the running ' +
      'balance and held sum; keyset paging (D5).',
    scopes: ['policy.get', 'policy.all'],
    params: policyParams,
    query: cdLedgerQuery,
    response: listCdLedgerPayload,
    errors: [policyNotFound()],
    handler: async ({ params, query, scope, deps }: Req<PolicyParams, CdLedgerQuery>) => {
      const page = await withCursorErrors(cdLedgerPage(scope, cursors(deps), params.policy_id, query));
      if (!page) throw policyNotFound();
      return {
        entries: page.rows.map(presentCdLedgerEntry),
        ...pagingFields(page),
        message: 'CD ledger fetched successfully',
        success: true,
      };
    },
  }),
];
