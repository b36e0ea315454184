import type { TenantScope } from '../../data/scope.js';
import { decidePolicyRenewal, readRenewal, RenewalRefused } from '../../usecases/policy-year/renewals.js';
import type { Auth } from '../auth/tokens.js';
import { conflict, notFound } from '../errors.js';
import { presentRenewal, renewalPayload } from '../presenters/renewal.js';
import { route, type Handler } from '../route.js';
import { policyParams, type PolicyParams } from '../schemas/policies.js';
import type { AppDeps } from '../deps.js';

type Req = Handler<PolicyParams, undefined, undefined, Auth>;

/** No renewal open for the policy, or not the client's policy (D1: answered alike). */
const renewalNotFound = () => notFound('Renewal Not Found');
const alreadyDecided = (detail: string) => conflict('Renewal Already Decided', detail);

async function decide(
  deps: AppDeps,
  scope: TenantScope,
  policyId: string,
  decision: 'CONFIRMED' | 'DECLINED',
) {
  try {
    await decidePolicyRenewal(deps, scope, policyId, decision, 'client');
  } catch (err) {
    if (!(err instanceof RenewalRefused)) throw err;
    if (err.code === 'ALREADY_DECIDED') throw alreadyDecided(err.message);
    throw renewalNotFound();
  }
  return (await readRenewal(scope, deps.config, policyId))!;
}

export const renewalRoutes = [
  route({
    method: 'GET',
    path: '/v1/policy/:policy_id/renewal',
    operationId: 'getPolicyRenewal',
    summary: "Get the policy's renewal (D17)",
    description:
      'The renewal of the policy term: members carried, members dropped with the reason, premium before ' +
      'and after, the CD balance the next term needs. Computed from the current members at each read.',
    scopes: ['policy.get', 'policy.all'],
    params: policyParams,
    response: renewalPayload,
    errors: [renewalNotFound()],
    handler: async ({ params, scope, deps }: Req) => {
      const view = await readRenewal(scope, deps.config, params.policy_id);
      if (!view) throw renewalNotFound();
      return { renewal: presentRenewal(view), message: 'Renewal fetched successfully', success: true };
    },
  }),
  route({
    method: 'POST',
    path: '/v1/policy/:policy_id/renewal/confirm',
    operationId: 'confirmPolicyRenewal',
    summary: "Confirm the policy's renewal (D17)",
    description: 'Confirming a confirmed (or renewed) renewal answers it again; after a decline: 409.',
    scopes: ['policy.all'],
    params: policyParams,
    response: renewalPayload,
    errors: [renewalNotFound(), alreadyDecided('the renewal is DECLINED')],
    handler: async ({ params, scope, deps }: Req) => ({
      renewal: presentRenewal(await decide(deps, scope, params.policy_id, 'CONFIRMED')),
      message: 'Renewal confirmed successfully',
      success: true,
    }),
  }),
  route({
    method: 'POST',
    path: '/v1/policy/:policy_id/renewal/decline',
    operationId: 'declinePolicyRenewal',
    summary: "Decline the policy's renewal (D17)",
    description:
      'The term then ends at its end date and nothing is created. Declining a declined renewal answers it ' +
      'again; after a confirmation: 409.',
    scopes: ['policy.all'],
    params: policyParams,
    response: renewalPayload,
    errors: [renewalNotFound(), alreadyDecided('the renewal is CONFIRMED')],
    handler: async ({ params, scope, deps }: Req) => ({
      renewal: presentRenewal(await decide(deps, scope, params.policy_id, 'DECLINED')),
      message: 'Renewal declined successfully',
      success: true,
    }),
  }),
];
