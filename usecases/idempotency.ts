import { setTimeout as sleep } from 'node:timers/promises';
import {
  claimIdempotencyKey,
  readIdempotencyRecord,
  releaseIdempotencyKey,
  storeIdempotentAnswer,
} from '../data/idempotency.js';
import type { TenantScope } from '../data/scope.js';
import type { Clock } from '../domain/clock.js';

/** How long a key answers with its first response. */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/** An unanswered claim older than this is taken to be from a crashed request and may be re-run. */
const ABANDONED_AFTER_MS = 60_000;
/** How long a request waits for a concurrent one with the same key to answer. */
const WAIT_FOR_FIRST_MS = 15_000;
const POLL_MS = 25;

/** Why a keyed request did not run: its key went with another body, or its first request still runs. */
export class IdempotencyRefused extends Error {
  constructor(readonly reason: 'key_reused' | 'in_progress') {
    super(reason);
  }
}

export interface KeyedRequest {
  /** The client's tenancy; a key is scoped to one route of one client. */
  tenant: TenantScope;
  clock: Clock;
  /** e.g. `POST /v1/policy/endorsements`. */
  route: string;
  key: string;
  /** The request body's hash: the same key with another body is refused. */
  requestHash: string;
}

/**
 * Runs a write at most once per key. The record's primary key (client_id, route, key) is the
 * arbiter: exactly one request claims the key by inserting it; the others (same key, same body) wait
 * for its answer and return it without doing anything, within 24 h. Only successful answers are kept:
 * a failed first attempt releases the key, so a retry runs again. The claim is made on its own
 * connection, outside any transaction of the write, so that others see it at once.
 */
export async function runOnce<T>(
  request: KeyedRequest,
  run: () => Promise<T>,
): Promise<{ payload: T; replayed: boolean }> {
  const { tenant, clock, requestHash } = request;
  const id = { route: request.route, key: request.key };
  const deadline = Date.now() + WAIT_FOR_FIRST_MS;
  for (;;) {
    const now = clock.now().getTime();
    const claimed = await claimIdempotencyKey(tenant, id, requestHash, {
      now: new Date(now),
      expiredBefore: new Date(now - IDEMPOTENCY_TTL_MS),
      abandonedBefore: new Date(now - ABANDONED_AFTER_MS),
    });
    if (claimed) {
      let payload: T;
      try {
        payload = await run();
      } catch (err) {
        await releaseIdempotencyKey(tenant, id);
        throw err;
      }
      await storeIdempotentAnswer(tenant, id, payload);
      return { payload, replayed: false };
    }
    const stored = await readIdempotencyRecord(tenant, id);
    if (!stored) continue; // the first attempt failed and released the key: claim it again
    if (stored.requestHash !== requestHash) throw new IdempotencyRefused('key_reused');
    if (stored.responseStatus !== null) return { payload: stored.responseBody as T, replayed: true };
    if (Date.now() > deadline) throw new IdempotencyRefused('in_progress');
    await sleep(POLL_MS);
  }
}
