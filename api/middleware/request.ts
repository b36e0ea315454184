import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { createGunzip, createInflate } from 'node:zlib';
import { JSON_PIECE_BYTES } from '../../domain/upload-limits.js';
import { ApiError, bodyTooLarge, malformedJson, unsupportedMediaType, validationError } from '../errors.js';
import { JsonScan } from '../json-scan.js';
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

/** The body's bytes as sent: decompressed where the client compressed them (gzip, deflate). */
function bodySource(ctx: Koa.Context): AsyncIterable<Buffer> {
  const encoding = (ctx.get('content-encoding') || 'identity').toLowerCase();
  if (encoding === 'identity') return ctx.req;
  if (encoding === 'gzip' || encoding === 'x-gzip') return ctx.req.pipe(createGunzip());
  if (encoding === 'deflate') return ctx.req.pipe(createInflate());
  throw unsupportedMediaType();
}

/** Stops reading a refused body: the rest is drained unread, so the client still gets the answer. */
function drain(ctx: Koa.Context): void {
  ctx.req.unpipe();
  ctx.req.resume();
}

/**
 * Reads and parses the JSON body into `ctx.request.body`: a body over `limit` bytes is a 413 without
 * reading it all, malformed JSON a 400 (D11). Its values and nesting are counted as its bytes arrive
 * (JsonScan), in pieces with a turn of the event loop between them, so a body past MAX_JSON_NODES
 * values or MAX_JSON_DEPTH levels is a 400 naming the bound before JSON.parse runs; JSON.parse then
 * only ever sees a body of bounded size and node count. Called by the route mounting after
 * authentication, so an anonymous caller can never make the API read more than the public routes'
 * small limit.
 */
export async function readJsonBody(ctx: Koa.Context, limit = MAX_BODY_BYTES): Promise<void> {
  // Not JSON (no body at all: jsonOnly refused any other media type): no body, as before.
  if (!ctx.is('json')) {
    ctx.request.body = {};
    return;
  }
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limit) throw bodyTooLarge(shown(limit));
  const scan = new JsonScan();
  const chunks: Buffer[] = [];
  let total = 0;
  let refusal: string | null = null;
  try {
    for await (const chunk of bodySource(ctx)) {
      total += chunk.length;
      if (total > limit) {
        drain(ctx);
        throw bodyTooLarge(shown(limit));
      }
      // Past a bound the rest (within the byte limit) is read unscanned and dropped: leaving the
      // loop would destroy the request, and the client would get a reset instead of the answer.
      if (refusal) continue;
      for (let at = 0; at < chunk.length && !refusal; at += JSON_PIECE_BYTES) {
        refusal = scan.feed(chunk.subarray(at, at + JSON_PIECE_BYTES));
        if (at + JSON_PIECE_BYTES < chunk.length) await nextTurn();
      }
      if (!refusal) chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof ApiError) throw err;
    // A compressed body that does not inflate, or a connection that broke mid-body.
    throw malformedJson();
  }
  if (refusal) throw validationError(refusal);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') {
    // An empty JSON body reads as no body, as before.
    ctx.request.body = {};
    return;
  }
  try {
    ctx.request.body = JSON.parse(text) as unknown;
  } catch {
    throw malformedJson();
  }
}

declare module 'koa' {
  interface Request {
    /** The parsed JSON body (readJsonBody); `{}` where there was none. */
    body?: unknown;
  }
}
