import { z } from 'zod';
import { readEndorsement, type EndorsementRow } from '../../data/endorsements/endorsements.js';
import { TenantScope } from '../../data/scope.js';
import { EndorsementRefused, type CreatedEndorsement } from '../../domain/endorsements/endorsement.js';
import { looksLikeId } from '../../domain/ids.js';
import {
  CD_READ_SCOPES,
  ENDORSEMENT_READ_SCOPES,
  ENDORSEMENT_SCOPES,
  hasAnyScope,
} from '../../domain/scopes.js';
import {
  acceptEndorsement,
  cancelThroughWorkflow,
  endorsementRules,
  priceEndorsement,
} from '../../usecases/endorsements/endorsements.js';
import { WorkflowNotStarted } from '../../usecases/workflow-start.js';
import { today } from '../../domain/clock.js';
import { endorsementWorkflowId } from '../../workflows/endorsement/contract.js';
import type { Auth } from '../auth/tokens.js';
import type { AppDeps } from '../deps.js';
import {
  conflict,
  dependentNotEligible,
  notFound,
  serviceUnavailable,
  validationError,
  type ApiError,
} from '../errors.js';
import { isUnavailable } from '../middleware/errors.js';
import {
  createEndorsementPayload,
  endorsementDryRunPayload,
  endorsementPayload,
  presentDryRun,
  presentEndorsement,
} from '../presenters/endorsement.js';
import { route, type Handler } from '../route.js';
import {
  createEndorsementBody,
  endorsementParams,
  invalidType,
  missingAdditionDetails,
  parseEndorsementRequest,
  type CreateEndorsementBody,
  type EndorsementParams,
} from '../schemas/endorsements.js';

type Req<P, B> = Handler<P, undefined, B, Auth>;

const createQuery = z.object({
  dry_run: z.enum(['true', 'false'], { error: 'must be true or false' }).optional().meta({
    description: 'true: answer what the create would do (policy, premium, CD hold) and write nothing',
  }),
});
type CreateQuery = z.output<typeof createQuery>;

/**
 * D17's dry run: the create's checks and price, and the CD forecast for a token that reads the CD
 * account. Writes nothing (no endorsement, audit entry, idempotency record or workflow).
 */
async function dryRun(deps: AppDeps, scope: TenantScope, auth: Auth, body: CreateEndorsementBody) {
  const req = parseEndorsementRequest(body);
  try {
    const priced = await priceEndorsement(scope, req, today(deps.clock), endorsementRules(deps.config));
    return presentDryRun(req, priced, hasAnyScope(auth.scopes, CD_READ_SCOPES));
  } catch (err) {
    if (err instanceof EndorsementRefused) throw refusalToApiError(err);
    throw err;
  }
}

const endorsementNotFound = () => notFound('Endorsement Not Found');
const alreadyDecided = (detail: string) => conflict('Endorsement Already Decided', detail);

/** Every refusal code (a Record, so a new code does not compile until listed), for the API reference. */
const REFUSALS = Object.keys({
  EMPLOYEE_NOT_FOUND: true,
  DEPENDENT_NOT_FOUND: true,
  POLICY_NOT_FOUND: true,
  INVALID: true,
  INELIGIBLE: true,
  IN_PROGRESS: true,
  ALREADY_COVERED: true,
  NOT_COVERED: true,
  NOT_REINSTATABLE: true,
  REINSTATEMENT_WINDOW_CLOSED: true,
} satisfies Record<EndorsementRefused['code'], true>) as EndorsementRefused['code'][];

/** D7's synchronous refusals as the spec's errors (D16's eligibility breaches name each rule). */
export function refusalToApiError(err: EndorsementRefused): ApiError {
  switch (err.code) {
    case 'EMPLOYEE_NOT_FOUND':
      return notFound('Employee Not Found');
    case 'DEPENDENT_NOT_FOUND':
      return notFound('Dependent Not Found');
    case 'POLICY_NOT_FOUND':
      return notFound('Policy Not Found');
    case 'INVALID':
      return validationError(err.detail);
    case 'INELIGIBLE':
      return dependentNotEligible(err.detail);
    case 'IN_PROGRESS':
      return conflict('Endorsement In Progress', err.detail);
    case 'ALREADY_COVERED':
      return conflict('Employee Already Covered', err.detail);
    case 'NOT_COVERED':
      return conflict('Employee Not Covered', err.detail);
    case 'NOT_REINSTATABLE':
      return conflict('Nothing To Reinstate', err.detail);
    case 'REINSTATEMENT_WINDOW_CLOSED':
      return conflict('Reinstatement Window Closed', err.detail);
  }
}

async function findEndorsement(scope: TenantScope, id: string): Promise<EndorsementRow | undefined> {
  return looksLikeId('endorsement', id) ? readEndorsement(scope, id) : undefined;
}

/**
 * Stores the endorsement, then starts its workflow (usecases/endorsements/endorsements.ts acceptEndorsement): a
 * start that fails removes the row and answers 503 when Temporal is unreachable, so the client
 * never holds an id without a workflow; a crash between the two is healed by the reconciler.
 */
async function accept(
  deps: AppDeps,
  scope: TenantScope,
  auth: Auth,
  body: CreateEndorsementBody,
  requestId: string,
) {
  let created: CreatedEndorsement;
  try {
    created = await acceptEndorsement(deps, scope, parseEndorsementRequest(body), { tokenId: auth.tokenId });
  } catch (err) {
    if (err instanceof EndorsementRefused) throw refusalToApiError(err);
    if (!(err instanceof WorkflowNotStarted)) throw err;
    if (isUnavailable(err.cause))
      throw serviceUnavailable('The workflow engine is unreachable; retry shortly.');
    throw err.cause;
  }
  // Links the request's log lines to the workflow's (which carry the same endorsementId).
  deps.logger.info(
    { requestId, endorsementId: created.id, workflowId: endorsementWorkflowId(created.id) },
    'endorsement accepted',
  );
  return { endorsement_id: created.id, message: 'Endorsement created successfully', success: true };
}

/** D7 cancel through the workflow's update, so the answer reflects what the workflow did. */
async function cancel(deps: AppDeps, scope: TenantScope, row: EndorsementRow): Promise<EndorsementRow> {
  if (row.status === 'ENDORSEMENT_STATUS_CANCELLED') return row;
  if (row.status === 'ENDORSEMENT_STATUS_APPROVED' || row.status === 'ENDORSEMENT_STATUS_REJECTED') {
    throw alreadyDecided(`the endorsement is ${row.status}`);
  }
  await cancelThroughWorkflow(deps, scope, {
    id: row.id,
    clientId: row.client_id,
    policyId: row.policy_id,
    employeeId: row.employee_id,
    type: row.type,
  });
  const after = (await readEndorsement(scope, row.id))!;
  if (after.status !== 'ENDORSEMENT_STATUS_CANCELLED') {
    const detail =
      after.status === 'ENDORSEMENT_STATUS_SENT_TO_INSURER'
        ? "the insurer's decision arrived first and is being applied"
        : `the endorsement is ${after.status}`;
    throw alreadyDecided(detail);
  }
  return after;
}

export const endorsementRoutes = [
  route({
    method: 'POST',
    path: '/v1/policy/endorsements',
    operationId: 'createEndorsement',
    summary: 'Create endorsement (spec 4.9)',
    description:
      'Checked synchronously (D7), then processed by a workflow: PENDING, SENT_TO_INSURER, then APPROVED ' +
      'or REJECTED (or CANCELLED). Without policy_id the routing of D7 picks the policy. An optional ' +
      '`Idempotency-Key` header makes a retry return the first answer. `?dry_run=true` (D17) answers what the ' +
      'create would do with the same checks and refusals: the policy it routes to, the premium pro-rata by ' +
      'days and, for a token that reads the CD account (`policy.get`, `policy.all`), the CD hold, the available ' +
      'balance after it and whether cover would wait for funds; it writes nothing and is not keyed.',
    scopes: ENDORSEMENT_SCOPES,
    query: createQuery,
    body: createEndorsementBody,
    response: z.union([createEndorsementPayload, endorsementDryRunPayload]),
    errors: [
      invalidType(),
      missingAdditionDetails(['coverage_start_date']),
      ...REFUSALS.map((code) => refusalToApiError(new EndorsementRefused(code, '…'))),
    ],
    // At most once per Idempotency-Key (see withIdempotency); without one, each request creates.
    idempotencyKey: true,
    // A dry run writes nothing: it is not keyed (the same key may then create).
    unkeyed: (q) => (q as CreateQuery).dry_run === 'true',
    handler: async ({
      body,
      query,
      auth,
      em,
      deps,
      ctx,
    }: Handler<undefined, CreateQuery, CreateEndorsementBody, Auth>) => {
      const scope = TenantScope.of(em, auth.clientId);
      if (query.dry_run === 'true') return dryRun(deps, scope, auth, body);
      return accept(deps, scope, auth, body, String(ctx.state.requestId));
    },
  }),
  route({
    method: 'GET',
    path: '/v1/policy/endorsements/:endorsement_id',
    operationId: 'getEndorsement',
    summary: 'Get endorsement (spec 4.10)',
    scopes: ENDORSEMENT_READ_SCOPES,
    params: endorsementParams,
    response: endorsementPayload,
    errors: [endorsementNotFound()],
    handler: async ({ params, auth, em }: Req<EndorsementParams, undefined>) => {
      const row = await findEndorsement(TenantScope.of(em, auth.clientId), params.endorsement_id);
      if (!row) throw endorsementNotFound();
      return {
        endorsement: presentEndorsement(row),
        message: 'Endorsement fetched successfully',
        success: true,
      };
    },
  }),
  route({
    method: 'POST',
    path: '/v1/policy/endorsements/:endorsement_id/cancel',
    operationId: 'cancelEndorsement',
    summary: 'Cancel endorsement (D7)',
    description:
      'While PENDING or SENT_TO_INSURER; once submitted, the insurer adapter is told to withdraw. ' +
      'Cancelling a cancelled endorsement answers it again.',
    scopes: ENDORSEMENT_SCOPES,
    params: endorsementParams,
    response: endorsementPayload,
    errors: [endorsementNotFound(), alreadyDecided('the endorsement is ENDORSEMENT_STATUS_APPROVED')],
    handler: async ({ params, auth, em, deps }: Req<EndorsementParams, undefined>) => {
      const scope = TenantScope.of(em, auth.clientId);
      const row = await findEndorsement(scope, params.endorsement_id);
      if (!row) throw endorsementNotFound();
      const after = await cancel(deps, scope, row);
      return {
        endorsement: presentEndorsement(after),
        message: 'Endorsement cancelled successfully',
        success: true,
      };
    },
  }),
];
