import type { EntityManager } from '@mikro-orm/postgresql';
import { discardUnstartedGrant, startGrantWorkflow } from '../../domain/grant-workflow.js';
import { createGrant, GrantRefused, type CreatedGrant } from '../../domain/grants.js';
import { looksLikeId } from '../../domain/ids.js';
import type { Auth } from '../auth/tokens.js';
import type { AppDeps } from '../deps.js';
import { notFound, serviceUnavailable } from '../errors.js';
import { isUnavailable } from '../middleware/errors.js';
import {
  grantAcceptedPayload,
  grantPayload,
  presentGrant,
  type GrantItemRow,
  type GrantRow,
} from '../presenters/grant.js';
import { route, type Handler } from '../route.js';
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
 * Stores the grant, then starts its workflow. If the start fails the row is removed in the same
 * request (503 when Temporal is unreachable), so the client never holds a request id without a
 * workflow; a crash between the two is healed by the grant reconciler workflow.
 */
async function accept(deps: AppDeps, em: EntityManager, auth: Auth, body: GrantBody) {
  let created: CreatedGrant;
  try {
    created = await createGrant(em, auth.clientId, toGrantRequest(body), { tokenId: auth.tokenId });
  } catch (err) {
    if (!(err instanceof GrantRefused)) throw err;
    throw notFound(err.code === 'EMPLOYEE_NOT_FOUND' ? 'Employee Not Found' : 'Policy Not Found', err.detail);
  }
  try {
    await startGrantWorkflow(deps, em, created);
  } catch (err) {
    if (await discardUnstartedGrant(em, created)) {
      if (isUnavailable(err)) throw serviceUnavailable('The workflow engine is unreachable; retry shortly.');
      throw err;
    }
    // The workflow (or the reconciler) has taken the grant over: it stands.
  }
  return { request_id: created.id, message: 'Grant request accepted', success: true as const };
}

/** D9: the grant, its endorsements and the policies it skipped or could not enrol, from PostgreSQL. */
async function readGrant(em: EntityManager, clientId: string, id: string) {
  if (!looksLikeId('grant', id)) return undefined;
  const conn = em.getConnection();
  const [row] = await conn.execute<GrantRow[]>(
    `select id, employee_id, start_date::text as start_date, end_date::text as end_date, status
       from grants where client_id = ? and id = ?`,
    [clientId, id],
  );
  if (!row) return undefined;
  const items = await conn.execute<GrantItemRow[]>(
    `select gi.policy_id, gi.outcome, gi.endorsement_id, gi.detail,
            e.status as endorsement_status, e.rejection_reason
       from grant_items gi left join endorsements e on e.id = gi.endorsement_id
      where gi.client_id = ? and gi.grant_id = ?
      order by gi.created_at, gi.policy_id`,
    [clientId, id],
  );
  return presentGrant(row, items);
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
    handler: async ({ body, auth, em, deps }: Req<undefined, GrantBody>) => accept(deps, em, auth, body),
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
      const grant = await readGrant(em, auth.clientId, params.request_id);
      if (!grant) throw grantNotFound();
      return { grant, message: 'Grant fetched successfully', success: true };
    },
  }),
];
