import { createHash } from 'node:crypto';
import type Koa from 'koa';
import { TenantScope } from '../data/scope.js';
import { IdempotencyRefused, runOnce } from '../usecases/idempotency.js';
import type { AppDeps } from './deps.js';
import { ApiError, conflict, validationError } from './errors.js';

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
 * Runs a POST at most once per `Idempotency-Key` (optional header): the use case's runOnce (the key's
 * record arbitrates; same key and body within 24 h answer the first response). The same key with
 * another body is 422 IDEMPOTENCY_KEY_REUSED; a first request still running past 15 s is 409.
 */
export async function withIdempotency<T>(scope: IdempotencyScope, run: () => Promise<T>): Promise<T> {
  const key = scope.ctx.get('idempotency-key');
  if (!key) return run();
  if (!IDEMPOTENCY_KEY.test(key)) throw invalidIdempotencyKey();
  try {
    const { payload, replayed } = await runOnce(
      {
        tenant: TenantScope.of(scope.deps.orm.em, scope.clientId),
        clock: scope.deps.clock,
        route: scope.route,
        key,
        requestHash: requestHash(scope.body),
      },
      run,
    );
    if (replayed) scope.ctx.set('Idempotent-Replayed', 'true');
    return payload;
  } catch (err) {
    if (!(err instanceof IdempotencyRefused)) throw err;
    throw err.reason === 'key_reused' ? idempotencyKeyReused() : requestInProgress();
  }
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
