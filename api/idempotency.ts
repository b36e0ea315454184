import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type Koa from 'koa';
import {
  claimIdempotencyKey,
  readIdempotencyRecord,
  releaseIdempotencyKey,
  storeIdempotentAnswer,
} from '../data/idempotency.js';
import { TenantScope } from '../data/scope.js';
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
  // Its own connection, outside any transaction of the route: the claim must be seen by others at once.
  const tenant = TenantScope.of(scope.deps.orm.em, scope.clientId);
  const id = { route: scope.route, key };
  const deadline = Date.now() + WAIT_FOR_FIRST_MS;

  for (;;) {
    if (await claim(tenant, scope, key, hash)) {
      let payload: T;
      try {
        payload = await run();
      } catch (err) {
        await releaseIdempotencyKey(tenant, id);
        throw err;
      }
      await storeIdempotentAnswer(tenant, id, payload);
      return payload;
    }
    const stored = await readIdempotencyRecord(tenant, id);
    if (!stored) continue; // the first attempt failed and released the key: claim it again
    if (stored.requestHash !== hash) {
      throw idempotencyKeyReused();
    }
    if (stored.responseStatus !== null) {
      scope.ctx.set('Idempotent-Replayed', 'true');
      return stored.responseBody as T;
    }
    if (Date.now() > deadline) {
      throw requestInProgress();
    }
    await sleep(POLL_MS);
  }
}

/** Inserts the claim, or takes over a record that expired (24 h) or was abandoned unanswered. */
function claim(tenant: TenantScope, scope: IdempotencyScope, key: string, hash: string): Promise<boolean> {
  const now = scope.deps.clock.now().getTime();
  return claimIdempotencyKey(tenant, { route: scope.route, key }, hash, {
    now: new Date(now),
    expiredBefore: new Date(now - IDEMPOTENCY_TTL_MS),
    abandonedBefore: new Date(now - ABANDONED_AFTER_MS),
  });
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
