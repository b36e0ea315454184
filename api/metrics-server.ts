import { timingSafeEqual } from 'node:crypto';
import http, { type Server } from 'node:http';
import type { AppDeps } from './deps.js';

const sameSecret = (given: string, expected: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

const problem = (res: http.ServerResponse, status: number, type: string, title: string, path: string) => {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify({ type, title, detail: '', instance: path }));
};

/**
 * GET /metrics for Prometheus on a port of its own (METRICS_PORT), bound to loopback by default
 * (METRICS_HOST): platform-wide counts are not for tenants, and a scraper flood cannot reach the
 * API's port. METRICS_TOKEN additionally asks for that bearer token.
 */
export async function listenMetrics(
  deps: Pick<AppDeps, 'config' | 'metrics'>,
  port = deps.config.METRICS_PORT,
  host = deps.config.METRICS_HOST,
): Promise<Server> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path !== '/metrics') return problem(res, 404, 'NOT_FOUND', 'Not Found', path);
    if (req.method !== 'GET') return problem(res, 405, 'METHOD_NOT_ALLOWED', 'Method Not Allowed', path);
    const token = deps.config.METRICS_TOKEN;
    if (token && !sameSecret(req.headers.authorization ?? '', `Bearer ${token}`)) {
      res.setHeader('www-authenticate', 'Bearer');
      return problem(res, 401, 'UNAUTHORIZED', 'Unauthorized', path);
    }
    deps.metrics.registry.metrics().then(
      (text) => {
        res.writeHead(200, {
          'content-type': deps.metrics.registry.contentType,
          'cache-control': 'no-store',
        });
        res.end(text);
      },
      () => problem(res, 500, 'E5000', 'An unexpected error occurred', path),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
