import { z } from 'zod';
import { today } from '../../domain/clock.js';
import { clientOfEmployee, findCoverage, findHealthCard } from '../../domain/coverage.js';
import { TENANT_FILTER } from '../../db/entities/tenant.js';
import { healthCardFileName, renderHealthCard } from '../../domain/health-card.js';
import { looksLikeId } from '../../domain/ids.js';
import { linkSigner } from '../../domain/signed-links.js';
import type { Auth } from '../auth/tokens.js';
import { forbidden, notFound } from '../errors.js';
import { coveragePayload, presentCoverageEntry } from '../presenters/coverage.js';
import { route, type Handler } from '../route.js';

const employeeNotFound = () => notFound('Employee Not Found');
const employeeNotCovered = () => notFound('Employee Not Covered');
const linkInvalid = () =>
  forbidden('Link Expired or Invalid', 'request a fresh pdf_url from the coverage lookup');

const employeeId = z.string().meta({ description: 'The service-assigned employee id' });
const coverageParams = z.object({ employee_id: employeeId });
const healthCardParams = z.object({
  employee_id: employeeId,
  policy_id: z.string().meta({ description: 'The policy of the card, as the coverage entry names it' }),
});
/** The link's own query; its values are checked with the signature, so any string passes here. */
const healthCardQuery = z.object({
  expires: z.string().meta({ description: 'Expiry, Unix seconds' }),
  signature: z.string().meta({ description: 'HMAC of method, path and expiry' }),
});

/** The health card's path; this exact string, with the expiry, is what the link's HMAC covers (D10). */
const healthCardPath = (employeeId: string, policyId: string) =>
  `/v1/policy/coverage/${employeeId}/health-card/${policyId}.pdf`;

/** What a health-card link is bound to besides its path and expiry. */
const linkBinding = (secretVersion: number) => `client-secret-version:${secretVersion}`;

export const coverageRoutes = [
  route({
    method: 'GET',
    path: '/v1/policy/coverage/:employee_id',
    operationId: 'getCoverage',
    summary: 'Policy coverage of an employee (spec 4.11)',
    description: 'One entry per policy whose active member row for the employee covers today (D10).',
    scopes: ['policy.get', 'policy.all'],
    params: coverageParams,
    response: coveragePayload,
    errors: [employeeNotFound(), employeeNotCovered()],
    handler: async ({
      params,
      auth,
      em,
      deps,
    }: Handler<z.output<typeof coverageParams>, undefined, undefined, Auth>) => {
      if (!looksLikeId('employee', params.employee_id)) throw employeeNotFound();
      const now = deps.clock.now();
      const found = await findCoverage(em, auth.clientId, params.employee_id, today(deps.clock));
      if (!found.employeeFound) throw employeeNotFound();
      if (found.entries.length === 0) throw employeeNotCovered();
      const signer = linkSigner(deps.config.LINK_SIGNING_KEY);
      // Spec 4.11: the payload is the bare array of entries.
      return found.entries.map((entry) =>
        presentCoverageEntry(
          entry,
          deps.config.baseUrl +
            signer.sign(
              'GET',
              healthCardPath(params.employee_id, entry.policy_id),
              now,
              linkBinding(auth.secretVersion),
            ),
        ),
      );
    },
  }),
  route({
    method: 'GET',
    path: '/v1/policy/coverage/:employee_id/health-card/:policy_id.pdf',
    operationId: 'getHealthCard',
    summary: 'Health card PDF through a pre-signed link (D10); no bearer token',
    description: 'The pdf_url of a coverage entry: signed, valid for 3600 s, no bearer token (D10).',
    scopes: 'public',
    params: healthCardParams,
    query: healthCardQuery,
    invalidQuery: linkInvalid,
    response: {
      contentType: 'application/pdf',
      schema: z.string().meta({ contentMediaType: 'application/pdf' }),
      description: "The member's health card",
    },
    errors: [linkInvalid(), employeeNotCovered()],
    handler: async ({
      params,
      em,
      deps,
      ctx,
    }: Handler<
      z.output<typeof healthCardParams>,
      z.output<typeof healthCardQuery>,
      undefined,
      Auth | undefined
    >) => {
      if (!looksLikeId('employee', params.employee_id) || !looksLikeId('policy', params.policy_id))
        throw linkInvalid();
      // The link is bound to its client's secret version, read through the employee it names: a rotation
      // ends every outstanding link. An unknown employee leaves nothing to verify against.
      const owner = await clientOfEmployee(em, params.employee_id);
      if (!owner) throw linkInvalid();
      // The signature covers the raw request path, so a swapped id or an altered query never gets further.
      const check = linkSigner(deps.config.LINK_SIGNING_KEY).verify(
        'GET',
        ctx.path,
        ctx.querystring,
        deps.clock.now(),
        linkBinding(owner.secretVersion),
      );
      if (!check.ok) throw linkInvalid();

      // No token names the tenant: it comes from the verified employee id, and every read below is filtered by it (D1).
      const { clientId } = owner;
      em.setFilterParams(TENANT_FILTER, { clientId });
      const card = await findHealthCard(
        em,
        clientId,
        params.employee_id,
        params.policy_id,
        today(deps.clock),
      );
      if (!card) throw employeeNotCovered();

      ctx.body = await renderHealthCard(card, deps.clock.now());
      ctx.status = 200;
      ctx.type = 'application/pdf';
      ctx.set('Content-Disposition', `attachment; filename="${healthCardFileName(card.policyNumber)}"`);
      ctx.set('Cache-Control', 'private, no-store');
      ctx.set('X-Content-Type-Options', 'nosniff');
      return undefined;
    },
  }),
];
