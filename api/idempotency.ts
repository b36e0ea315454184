import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type Koa from 'koa';
import type { AppDeps } from './deps.js';
import { ApiError, conflict, validationError } from './errors.js';

/** How long a key answers with its first response. */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/** An unanswered claim older than this is taken to be from a crashed request and may be re-run. */
const ABANDONED_AFTER_MS = 60_000;
/** How long a request waits for a concurrent one with the same key to answer. */
const WAIT_FOR_FIRST_MS = 15_000;
const POLL_MS = 25;

/** 1 to 255 visible ASCII characters. */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

const invalidIdempotencyKey = () =>
  validationError('Idempotency-Key: must be 1 to 255 visible ASCII characters');
const idempotencyKeyReused = () =>
  new ApiError(
    422,
    'IDEMPOTENCY_KEY_REUSED',
    'Idempotency Key Reused',
    'Idempotency-Key: was already used with a different request body',
  );
const requestInProgress = () =>
  conflict('Request In Progress', 'a request with this Idempotency-Key is still being processed');

/** What a route wrapped in withIdempotency may answer besides its own errors (for its `errors`). */
export const IDEMPOTENCY_ERRORS = [invalidIdempotencyKey(), idempotencyKeyReused(), requestInProgress()];

export interface IdempotencyScope {
  deps: Pick<AppDeps, 'orm' | 'clock'>;
  ctx: Koa.Context;
  clientId: string;
  /** e.g. `POST /v1/policy/endorsements`; a key is scoped to one route of one client. */
  route: string;
  body: unknown;
}

interface Stored {
  request_hash: string;
  response_status: number | null;
  response_body: unknown;
}

/**
 * Runs a POST at most once per `Idempotency-Key` (optional header). The record's primary key
 * (client_id, route, key) is the arbiter: exactly one request claims the key by inserting it; the
 * others (same key, same body) wait for its answer and return it without doing anything, within
 * 24 h. The same key with another body is 422 IDEMPOTENCY_KEY_REUSED. Only successful answers are
 * kept: a failed first attempt releases the key, so a retry runs again.
 */
export async function withIdempotency<T>(scope: IdempotencyScope, run: () => Promise<T>): Promise<T> {
  const key = scope.ctx.get('idempotency-key');
  if (!key) return run();
  if (!IDEMPOTENCY_KEY.test(key)) throw invalidIdempotencyKey();
  const hash = requestHash(scope.body);
  const conn = scope.deps.orm.em.getConnection();
  const ids = [scope.clientId, scope.route, key];
  const deadline = Date.now() + WAIT_FOR_FIRST_MS;

  for (;;) {
    if (await claim(scope, key, hash)) {
      let payload: T;
      try {
        payload = await run();
      } catch (err) {
        await conn.execute(
          'delete from idempotency_records where client_id = ? and route = ? and key = ? and response_status is null',
          ids,
        );
        throw err;
      }
      await conn.execute(
        `update idempotency_records set response_status = 200, response_body = ?::jsonb
          where client_id = ? and route = ? and key = ?`,
        [JSON.stringify(payload), ...ids],
      );
      return payload;
    }
    const [stored] = await conn.execute<Stored[]>(
      'select request_hash, response_status, response_body from idempotency_records where client_id = ? and route = ? and key = ?',
      ids,
    );
    if (!stored) continue; // the first attempt failed and released the key: claim it again
    if (stored.request_hash !== hash) {
      throw idempotencyKeyReused();
    }
    if (stored.response_status !== null) {
      scope.ctx.set('Idempotent-Replayed', 'true');
      return stored.response_body as T;
    }
    if (Date.now() > deadline) {
      throw requestInProgress();
    }
    await sleep(POLL_MS);
  }
}

/** Inserts the claim, or takes over a record that expired (24 h) or was abandoned unanswered. */
async function claim(scope: IdempotencyScope, key: string, hash: string): Promise<boolean> {
  const now = scope.deps.clock.now().getTime();
  const rows = await scope.deps.orm.em.getConnection().execute<unknown[]>(
    `insert into idempotency_records (client_id, route, key, request_hash, created_at)
     values (?, ?, ?, ?, ?)
     on conflict (client_id, route, key) do update
       set request_hash = excluded.request_hash, response_status = null, response_body = null,
           created_at = excluded.created_at
       where idempotency_records.created_at < ?
          or (idempotency_records.response_status is null and idempotency_records.created_at < ?)
     returning 1`,
    [
      scope.clientId,
      scope.route,
      key,
      hash,
      new Date(now),
      new Date(now - IDEMPOTENCY_TTL_MS),
      new Date(now - ABANDONED_AFTER_MS),
    ],
  );
  return rows.length > 0;
}

/** SHA-256 of the body with object keys sorted, so key order does not make two bodies differ. */
export function requestHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
