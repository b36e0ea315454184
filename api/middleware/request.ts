import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import { bodyTooLarge, malformedJson, unsupportedMediaType } from '../errors.js';
import type { Logger } from '../logger.js';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** X-Request-Id in and out; one log line per request without bodies or query strings. */
export function requestLog(logger: Logger): Koa.Middleware {
  return async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    const requestId = SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    const started = performance.now();
    try {
      await next();
    } finally {
      const route = (ctx as { _matchedRoute?: string })._matchedRoute;
      logger.info(
        {
          requestId,
          method: ctx.method,
          path: route ?? ctx.path,
          status: ctx.status,
          ms: Math.round(performance.now() - started),
        },
        'request',
      );
    }
  };
}

export const MAX_BODY = '1mb';

/** JSON only (415 otherwise), at most 1 MiB (413), malformed JSON is a 400 (D11). */
export function jsonBody(): Koa.Middleware {
  const parse = bodyParser({
    enableTypes: ['json'],
    jsonLimit: MAX_BODY,
    strict: true,
    onerror: (err: Error & { status?: number; type?: string }) => {
      if (err.status === 413 || err.type === 'entity.too.large') throw bodyTooLarge();
      throw malformedJson();
    },
  });
  return async (ctx, next) => {
    const hasBody = ctx.request.length ? ctx.request.length > 0 : Boolean(ctx.get('transfer-encoding'));
    if (hasBody && ['POST', 'PUT', 'PATCH', 'DELETE'].includes(ctx.method) && !ctx.is('application/json')) {
      throw unsupportedMediaType();
    }
    await parse(ctx, next);
  };
}
