import type Koa from 'koa';
import { safeError } from '../../db/errors.js';
import type { Logger } from '../../infra/logger.js';
import { ApiError, serviceUnavailable, unexpectedError } from '../errors.js';

const DB_DOWN_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  '57P01',
  '57P03',
  '08006',
  '08001',
  '08004',
]);

/** True for failures that mean PostgreSQL or Temporal cannot be reached right now (D11: 503). */
export function isUnavailable(err: unknown): { what: string } | null {
  let e: unknown = err;
  for (let depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const { code, name, message } = e as { code?: unknown; name?: unknown; message?: unknown };
    const text = typeof message === 'string' ? message : '';
    if (typeof code === 'string' && DB_DOWN_CODES.has(code)) return { what: 'database' };
    if (name === 'ConnectionException' || /Timeout acquiring a connection|Connection terminated/.test(text)) {
      return { what: 'database' };
    }
    // gRPC UNAVAILABLE / DEADLINE_EXCEEDED from the Temporal client.
    if (typeof code === 'number' && (code === 14 || code === 4)) return { what: 'workflow engine' };
    if (name === 'ConnectionError' || name === 'TransportError') return { what: 'workflow engine' };
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}

/** Maps every failure to the spec's error body; nothing internal leaves the process (D11). */
export function errorMiddleware(logger: Logger): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.body === undefined || ctx.body === null) {
        // The router leaves these without a body: no route (404), or a route without this method (405, with Allow).
        if (ctx.status === 404)
          throw new ApiError(404, 'NOT_FOUND', 'Not Found', `no route for ${ctx.method} ${ctx.path}`);
        if (ctx.status === 405)
          throw new ApiError(
            405,
            'METHOD_NOT_ALLOWED',
            'Method Not Allowed',
            `allowed: ${ctx.response.get('Allow')}`,
          );
        if (ctx.status === 501) throw new ApiError(501, 'NOT_IMPLEMENTED', 'Not Implemented', '');
      }
    } catch (err) {
      const apiError = toApiError(err);
      if (apiError.status >= 500) {
        logger.error({ err: scrub(err), requestId: ctx.state.requestId, path: ctx.path }, 'request failed');
      }
      ctx.status = apiError.status;
      ctx.set(apiError.headers);
      ctx.body = { type: apiError.type, title: apiError.title, detail: apiError.detail, instance: ctx.path };
    }
  };
}

function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const unavailable = isUnavailable(err);
  if (unavailable) return serviceUnavailable(`The ${unavailable.what} is unreachable; retry shortly.`);
  const status = (err as { status?: unknown }).status;
  if (status === 405) return new ApiError(405, 'METHOD_NOT_ALLOWED', 'Method Not Allowed', '');
  if (status === 501) return new ApiError(501, 'NOT_IMPLEMENTED', 'Not Implemented', '');
  return unexpectedError();
}

/** Keeps the log useful without copying query parameters (which may hold personal data) into it. */
function scrub(failure: unknown): unknown {
  // A database error's message holds the failed statement with its values (db/errors.ts).
  const err = safeError(failure);
  if (!(err instanceof Error)) return { message: String(err) };
  return {
    name: err.name,
    message: err.message.slice(0, 500),
    stack: err.stack,
    code: (err as { code?: unknown }).code,
  };
}
