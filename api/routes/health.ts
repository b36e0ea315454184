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
    within(deps.orm.em.getConnection().execute('select 1'), CHECK_TIMEOUT_MS).then(
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

export const healthRoutes = [
  route({
    method: 'GET',
    path: '/healthz',
    summary: 'Process liveness',
    scopes: 'public',
    handler: async () => ({ status: 'ok' }),
  }),
  route({
    method: 'GET',
    path: '/readyz',
    summary: 'PostgreSQL and Temporal reachable',
    scopes: 'public',
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
