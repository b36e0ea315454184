import { z } from 'zod';
import { pingDatabase } from '../../data/health.js';
import { SystemScope } from '../../data/scope.js';
import { route } from '../route.js';
import { serviceUnavailable } from '../errors.js';
import type { AppDeps } from '../deps.js';

const CHECK_TIMEOUT_MS = 2_000;

async function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Each dependency's reachability; `true` when it answered within the timeout. */
export async function checkDependencies(deps: AppDeps): Promise<{ database: boolean; temporal: boolean }> {
  const [database, temporal] = await Promise.all([
    within(pingDatabase(SystemScope.of(deps.orm.em)), CHECK_TIMEOUT_MS).then(
      () => true,
      () => false,
    ),
    within(deps.temporal.workflowService.getSystemInfo({}), CHECK_TIMEOUT_MS).then(
      () => true,
      () => false,
    ),
  ]);
  return { database, temporal };
}

const livenessPayload = z.object({ status: z.literal('ok') }).meta({ id: 'LivenessPayload' });
const readinessPayload = z
  .object({
    status: z.literal('ready'),
    checks: z.object({ database: z.boolean(), temporal: z.boolean() }),
  })
  .meta({ id: 'ReadinessPayload' });

export const healthRoutes = [
  route({
    method: 'GET',
    path: '/healthz',
    operationId: 'checkLiveness',
    summary: 'Process liveness',
    scopes: 'public',
    response: livenessPayload,
    handler: async () => ({ status: 'ok' }),
  }),
  route({
    method: 'GET',
    path: '/readyz',
    operationId: 'checkReadiness',
    summary: 'PostgreSQL and Temporal reachable',
    description: 'For load balancers: 503 while either dependency is unreachable.',
    scopes: 'public',
    response: readinessPayload,
    handler: async ({ deps }) => {
      const checks = await checkDependencies(deps);
      if (!checks.database || !checks.temporal) {
        const down = Object.entries(checks)
          .filter(([, ok]) => !ok)
          .map(([name]) => name);
        throw serviceUnavailable(`unreachable: ${down.join(', ')}`);
      }
      return { status: 'ready', checks };
    },
  }),
];
