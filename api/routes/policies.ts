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
import {
  cdLedgerQuery,
  listMembersQuery,
  listPoliciesQuery,
  policyParams,
  statementParams,
} from '../schemas/policies.js';
import type {
  CdLedgerQuery,
  ListMembersQuery,
  ListPoliciesQuery,
  PolicyParams,
  StatementParams,
} from '../schemas/policies.js';
import { z } from 'zod';
import { monthDays } from '../../domain/policy-year/premium-statement.js';
import {
  premiumStatement,
  premiumStatementCsv,
  premiumStatementPdf,
} from '../../usecases/policy-year/premium-statement.js';
import { premiumStatementPayload, presentPremiumStatement } from '../presenters/premium-statement.js';
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
  route({
    method: 'GET',
    path: '/v1/policy/:policy_id/statements/:month',
    operationId: 'getPolicyPremiumStatement',
    summary: "The policy's monthly premium statement (D17)",
    description:
      'The CD balance at the start of the month (days in India, D13), every posting of the month in ' +
      'order (debits for approved endorsements, credits for refunds, top-ups, adjustments; holds move ' +
      'no balance) with its endorsement, members and pro-rata days, and the closing balance: opening ' +
      'plus postings, equal to the CD ledger to the paisa. JSON by default; `Accept: text/csv` or ' +
      '`Accept: application/pdf` answers the same statement as a file.',
    scopes: ['policy.get', 'policy.all'],
    params: statementParams,
    response: premiumStatementPayload,
    alsoAnswers: [
      {
        contentType: 'text/csv',
        schema: z.string().meta({ contentMediaType: 'text/csv' }),
        description: 'the statement as CSV: a header, the opening row, one row per posting, the closing row',
      },
      {
        contentType: 'application/pdf',
        schema: z.string().meta({ contentMediaType: 'application/pdf' }),
        description: 'the statement as a PDF',
      },
    ],
    errors: [policyNotFound()],
    handler: async ({ params, scope, deps, ctx }: Req<StatementParams, undefined>) => {
      const days = monthDays(params.month)!; // the params schema admitted only calendar months
      const statement = await premiumStatement(scope, params.policy_id, { label: params.month, ...days });
      if (!statement) throw policyNotFound();
      const wanted = ctx.accepts('application/json', 'text/csv', 'application/pdf');
      if (wanted !== 'text/csv' && wanted !== 'application/pdf') {
        return {
          statement: presentPremiumStatement(statement),
          message: 'Premium statement fetched successfully',
          success: true,
        };
      }
      const fileName = `premium-statement-${statement.policyNumber.replace(/[^A-Za-z0-9-]/g, '-')}-${params.month}`;
      ctx.status = 200;
      if (wanted === 'text/csv') {
        ctx.body = premiumStatementCsv(statement);
        ctx.type = 'text/csv';
        ctx.set('Content-Disposition', `attachment; filename="${fileName}.csv"`);
      } else {
        ctx.body = await premiumStatementPdf(statement, deps.clock.now());
        ctx.type = 'application/pdf';
        ctx.set('Content-Disposition', `attachment; filename="${fileName}.pdf"`);
      }
      ctx.set('Cache-Control', 'private, no-store');
      ctx.set('X-Content-Type-Options', 'nosniff');
      return undefined;
    },
  }),
];
