import { z } from 'zod';
import {
  reconciliationDetail,
  reconciliationListPage,
} from '../../usecases/reconciliation/reconciliations.js';
import type { Auth } from '../auth/tokens.js';
import { notFound } from '../errors.js';
import { cursorsFor, oneDirection, pageQueryFields, withCursorErrors, pagingFields } from '../paging.js';
import {
  getReconciliationPayload,
  listReconciliationsPayload,
  presentDifference,
  presentReconciliation,
  presentStatementDifference,
} from '../presenters/reconciliation.js';
import { route, type Handler } from '../route.js';
import { policyParams, type PolicyParams } from '../schemas/policies.js';

const pageQuery = z.object({ ...pageQueryFields }).superRefine(oneDirection);
type PageQuery = z.output<typeof pageQuery>;

const reconciliationParams = policyParams.extend({
  reconciliation_id: z.string().meta({ description: 'The reconciliation id, as the list answers it' }),
});
type ReconciliationParams = z.output<typeof reconciliationParams>;

type Req<P> = Handler<P, PageQuery, undefined, Auth>;

const policyNotFound = () => notFound('Policy Not Found');
const reconciliationNotFound = () => notFound('Reconciliation Not Found');

/**
 * Reconciliations of a policy: its insurer's rosters and CD statements (`kind`). A roster's differences quote both sides' values (names, dates of
 * birth): only the client owning the policy reads them (its scope finds nothing of another's: 404).
 */
export const reconciliationRoutes = [
  route({
    method: 'GET',
    path: '/v1/policy/:policy_id/reconciliations',
    operationId: 'listPolicyReconciliations',
    summary: "List the policy's reconciliations (rosters and CD statements)",
    description:
      'Newest first, each with its kind (roster or cd_statement) and counts by kind of difference; keyset paging (D5).',
    scopes: ['policy.get', 'policy.all'],
    params: policyParams,
    query: pageQuery,
    response: listReconciliationsPayload,
    errors: [policyNotFound()],
    handler: async ({ params, query, scope, deps }: Req<PolicyParams>) => {
      const page = await withCursorErrors(
        reconciliationListPage(scope, cursorsFor(deps.config), params.policy_id, query),
      );
      if (!page) throw policyNotFound();
      return {
        reconciliations: page.rows.map(presentReconciliation),
        ...pagingFields(page),
        message: 'Reconciliations fetched successfully',
        success: true,
      };
    },
  }),
  route({
    method: 'GET',
    path: '/v1/policy/:policy_id/reconciliations/:reconciliation_id',
    operationId: 'getPolicyReconciliation',
    summary: 'Get a reconciliation with its differences',
    description:
      'The summary and one page of its differences in order (keyset paging, D5): a roster’s (kind, field, our value and the insurer’s) or a CD statement’s (kind, reference, our amount and the insurer’s).',
    scopes: ['policy.get', 'policy.all'],
    params: reconciliationParams,
    query: pageQuery,
    response: getReconciliationPayload,
    errors: [reconciliationNotFound()],
    handler: async ({ params, query, scope, deps }: Req<ReconciliationParams>) => {
      const found = await withCursorErrors(
        reconciliationDetail(
          scope,
          cursorsFor(deps.config),
          params.policy_id,
          params.reconciliation_id,
          query,
        ),
      );
      if (!found) throw reconciliationNotFound();
      return {
        reconciliation: presentReconciliation(found.reconciliation),
        differences:
          found.kind === 'cd_statement'
            ? found.differences.rows.map(presentStatementDifference)
            : found.differences.rows.map(presentDifference),
        ...pagingFields(found.differences),
        message: 'Reconciliation fetched successfully',
        success: true,
      };
    },
  }),
];
