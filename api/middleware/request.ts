import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import { bodyTooLarge, malformedJson, unsupportedMediaType } from '../errors.js';
import type { Logger } from '../../infra/logger.js';

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

/** Request bodies of any route: at most 1 MiB (413). */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * JSON only: a write with a body of another media type is 415 before any route work (D11), except
 * the media types an upload route (by path) declares.
 */
export function jsonOnly(uploads: ReadonlyMap<string, readonly string[]> = new Map()): Koa.Middleware {
  return async (ctx, next) => {
    const hasBody = ctx.request.length ? ctx.request.length > 0 : Boolean(ctx.get('transfer-encoding'));
    const accepted = ['application/json', ...(uploads.get(ctx.path) ?? [])];
    if (hasBody && ['POST', 'PUT', 'PATCH', 'DELETE'].includes(ctx.method) && !ctx.is(accepted)) {
      throw unsupportedMediaType();
    }
    await next();
  };
}

/**
 * Reads an uploaded body as bytes, never more than `limit`: a declared length past it is refused
 * before reading, and a streamed body is refused as soon as it passes it (413, D11).
 */
export async function readUpload(ctx: Koa.Context, limit: number): Promise<Buffer> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limit) throw bodyTooLarge(shown(limit));
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > limit) {
      ctx.req.unpipe();
      ctx.req.resume();
      throw bodyTooLarge(shown(limit));
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

const shown = (bytes: number) =>
  bytes % (1024 * 1024) === 0
    ? `${bytes / 1024 / 1024} MiB`
    : bytes % 1024 === 0
      ? `${bytes / 1024} KiB`
      : `${bytes} bytes`;

/** One koa-bodyparser per body limit: JSON only, any JSON value (a `null` body is left to the schema). */
const parsers = new Map<number, Koa.Middleware>();
function parserFor(limit: number): Koa.Middleware {
  let parser = parsers.get(limit);
  if (!parser) {
    parser = bodyParser({
      enableTypes: ['json'],
      jsonLimit: `${limit}b`,
      strict: false,
      onerror: (err: Error & { status?: number; type?: string }) => {
        if (err.status === 413 || err.type === 'entity.too.large') throw bodyTooLarge(shown(limit));
        throw malformedJson();
      },
    });
    parsers.set(limit, parser);
  }
  return parser;
}

/**
 * Reads and parses the JSON body into `ctx.request.body`: a body over `limit` bytes is a 413 without
 * reading it all, malformed JSON a 400 (D11). Called by the route mounting after authentication, so
 * an anonymous caller can never make the API read more than the public routes' small limit; the
 * node-count bound of `unsafeInput` then keeps every later reader cheap.
 */
export async function readJsonBody(ctx: Koa.Context, limit = MAX_BODY_BYTES): Promise<void> {
  await parserFor(limit)(ctx, () => Promise.resolve());
  // An empty JSON body reads as no body, as before.
  if (ctx.request.body === '') ctx.request.body = {};
}
