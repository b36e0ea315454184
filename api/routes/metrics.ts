import { timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { notFound, unauthorized } from '../errors.js';
import { route } from '../route.js';

const sameSecret = (given: string, expected: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/**
 * GET /metrics for Prometheus, on the API port. Open by default (aggregates only: no client ids,
 * no personal data); METRICS_TOKEN makes it ask for that bearer token, METRICS_ENABLED=false hides it.
 */
export const metricsRoutes = [
  route({
    method: 'GET',
    path: '/metrics',
    summary: 'Prometheus metrics of this API process',
    description:
      'Requests by route and status, latency, token issues and rate-limit refusals, database pool use, ' +
      'endorsements by type and status, time from create to decision. See docs/operations.md.',
    scopes: 'public',
    response: {
      contentType: 'text/plain',
      schema: z.string().meta({ description: 'Prometheus text exposition format 0.0.4' }),
      description: 'The metrics',
    },
    errors: [notFound('Not Found', 'metrics are disabled (METRICS_ENABLED=false)'), unauthorized()],
    handler: async ({ deps, ctx }) => {
      if (!deps.config.METRICS_ENABLED)
        throw notFound('Not Found', 'metrics are disabled (METRICS_ENABLED=false)');
      const token = deps.config.METRICS_TOKEN;
      if (token && !sameSecret(ctx.get('authorization'), `Bearer ${token}`)) throw unauthorized();
      ctx.type = deps.metrics.registry.contentType;
      ctx.body = await deps.metrics.registry.metrics();
      ctx.set('Cache-Control', 'no-store');
      return undefined;
    },
  }),
];
