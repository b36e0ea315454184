import { z } from 'zod';
import { SystemScope } from '../../data/scope.js';
import { today } from '../../domain/clock.js';
import { coverageOf, healthCardThroughLink } from '../../usecases/coverage/index.js';
import type { Auth } from '../auth/tokens.js';
import { forbidden, notFound } from '../errors.js';
import { coveragePayload, presentCoverageEntry } from '../presenters/coverage.js';
import { route, type Handler } from '../route.js';

const employeeNotFound = () => notFound('Employee Not Found');
const employeeNotCovered = (detail = '') => notFound('Employee Not Covered', detail);
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
      scope,
      deps,
    }: Handler<z.output<typeof coverageParams>, undefined, undefined, Auth>) => {
      const found = await coverageOf(
        scope,
        params.employee_id,
        { today: today(deps.clock), now: deps.clock.now() },
        {
          signingKey: deps.config.LINK_SIGNING_KEY,
          baseUrl: deps.config.baseUrl,
          secretVersion: auth.secretVersion,
        },
      );
      if (found.outcome === 'unknown_employee') throw employeeNotFound();
      if (found.outcome === 'not_covered') throw employeeNotCovered(found.hint);
      // Spec 4.11: the payload is the bare array of entries.
      return found.entries.map((e) => presentCoverageEntry(e.coverage, e.pdfUrl));
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
      deps,
      ctx,
    }: Handler<
      z.output<typeof healthCardParams>,
      z.output<typeof healthCardQuery>,
      undefined,
      Auth | undefined
    >) => {
      const found = await healthCardThroughLink(
        SystemScope.of(deps.orm.em),
        {
          employeeId: params.employee_id,
          policyId: params.policy_id,
          path: ctx.path,
          rawQuery: ctx.querystring,
        },
        { today: today(deps.clock), now: deps.clock.now() },
        deps.config.LINK_SIGNING_KEY,
      );
      if (found.outcome === 'invalid_link') throw linkInvalid();
      if (found.outcome === 'not_covered') throw employeeNotCovered();

      ctx.body = found.pdf;
      ctx.status = 200;
      ctx.type = 'application/pdf';
      ctx.set('Content-Disposition', `attachment; filename="${found.fileName}"`);
      ctx.set('Cache-Control', 'private, no-store');
      ctx.set('X-Content-Type-Options', 'nosniff');
      return undefined;
    },
  }),
];
