import { readGrant } from '../../data/grants/grants.js';
import { TenantScope } from '../../data/scope.js';
import { GrantRefused, type CreatedGrant } from '../../domain/grants/grant.js';
import { looksLikeId } from '../../domain/ids.js';
import type { Auth } from '../auth/tokens.js';
import type { AppDeps } from '../deps.js';
import { notFound, serviceUnavailable } from '../errors.js';
import { isUnavailable } from '../middleware/errors.js';
import { grantAcceptedPayload, grantPayload, presentGrant } from '../presenters/grant.js';
import { route, type Handler } from '../route.js';
import { WorkflowNotStarted } from '../../usecases/workflow-start.js';
import { acceptGrant } from '../../usecases/grants/grants.js';
import {
  grantBody,
  grantParams,
  toGrantRequest,
  type GrantBody,
  type GrantParams,
} from '../schemas/grants.js';

type Req<P, B> = Handler<P, undefined, B, Auth>;

const grantNotFound = () => notFound('Grant Not Found');

/**
 * Stores the grant, then starts its workflow (usecases/grants/grants.ts acceptGrant): a start that fails
 * removes the row and answers 503 when Temporal is unreachable, so the client never holds a request
 * id without a workflow; a crash between the two is healed by the grant reconciler workflow.
 */
async function accept(deps: AppDeps, scope: TenantScope, auth: Auth, body: GrantBody) {
  let created: CreatedGrant;
  try {
    created = await acceptGrant(deps, scope, toGrantRequest(body), { tokenId: auth.tokenId });
  } catch (err) {
    if (err instanceof GrantRefused) {
      throw notFound(
        err.code === 'EMPLOYEE_NOT_FOUND' ? 'Employee Not Found' : 'Policy Not Found',
        err.detail,
      );
    }
    if (!(err instanceof WorkflowNotStarted)) throw err;
    if (isUnavailable(err.cause))
      throw serviceUnavailable('The workflow engine is unreachable; retry shortly.');
    throw err.cause;
  }
  return { request_id: created.id, message: 'Grant request accepted', success: true as const };
}

/** D9: the grant, its endorsements and the policies it skipped or could not enrol, from PostgreSQL. */
async function findGrant(scope: TenantScope, id: string) {
  if (!looksLikeId('grant', id)) return undefined;
  const stored = await readGrant(scope, id);
  return stored && presentGrant(stored.grant, stored.items);
}

export const grantRoutes = [
  route({
    method: 'POST',
    path: '/v1/policy/grant',
    operationId: 'createGrant',
    summary: 'Grant policy (spec 4.12, D9)',
    scopes: ['policy.all'],
    body: grantBody,
    response: grantAcceptedPayload,
    errors: [notFound('Employee Not Found'), notFound('Policy Not Found')],
    // At most once per Idempotency-Key (see withIdempotency); without one, each request creates.
    idempotencyKey: true,
    handler: async ({ body, auth, em, deps }: Req<undefined, GrantBody>) =>
      accept(deps, TenantScope.of(em, auth.clientId), auth, body),
  }),
  route({
    method: 'GET',
    path: '/v1/policy/grant/:request_id',
    operationId: 'getGrant',
    summary: 'Get grant request (D9)',
    scopes: ['policy.get', 'policy.all'],
    params: grantParams,
    response: grantPayload,
    errors: [grantNotFound()],
    handler: async ({ params, auth, em }: Req<GrantParams, undefined>) => {
      const grant = await findGrant(TenantScope.of(em, auth.clientId), params.request_id);
      if (!grant) throw grantNotFound();
      return { grant, message: 'Grant fetched successfully', success: true };
    },
  }),
];
