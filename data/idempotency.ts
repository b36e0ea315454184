import type { TenantScope } from './scope.js';

/** One `Idempotency-Key` of one route of the scope's client. */
export interface IdempotencyKey {
  route: string;
  key: string;
}

export interface StoredAnswer {
  requestHash: string;
  /** null while the request that claimed the key is still running. */
  responseStatus: number | null;
  responseBody: unknown;
}

/**
 * Inserts the claim, or takes over a record older than `expiredBefore` (its 24 h are over) or one
 * left unanswered since before `abandonedBefore` (a crashed request). The primary key (client_id,
 * route, key) is the arbiter: of concurrent claims exactly one gets a row back.
 */
export async function claimIdempotencyKey(
  scope: TenantScope,
  id: IdempotencyKey,
  requestHash: string,
  at: { now: Date; expiredBefore: Date; abandonedBefore: Date },
): Promise<boolean> {
  const rows = await scope.sql(
    `insert into idempotency_records (client_id, route, key, request_hash, created_at)
     values (?, ?, ?, ?, ?)
     on conflict (client_id, route, key) do update
       set request_hash = excluded.request_hash, response_status = null, response_body = null,
           created_at = excluded.created_at
       where idempotency_records.created_at < ?
          or (idempotency_records.response_status is null and idempotency_records.created_at < ?)
     returning 1`,
    [scope.clientId, id.route, id.key, requestHash, at.now, at.expiredBefore, at.abandonedBefore],
  );
  return rows.length > 0;
}

/** Gives back an unanswered claim (its request failed), so a retry runs again. */
export async function releaseIdempotencyKey(scope: TenantScope, id: IdempotencyKey): Promise<void> {
  await scope.sql(
    'delete from idempotency_records where client_id = ? and route = ? and key = ? and response_status is null',
    [scope.clientId, id.route, id.key],
  );
}

/** Keeps the successful answer; later requests with the key replay it. */
export async function storeIdempotentAnswer(
  scope: TenantScope,
  id: IdempotencyKey,
  body: unknown,
): Promise<void> {
  await scope.sql(
    `update idempotency_records set response_status = 200, response_body = ?::jsonb
      where client_id = ? and route = ? and key = ?`,
    [JSON.stringify(body), scope.clientId, id.route, id.key],
  );
}

export async function readIdempotencyRecord(
  scope: TenantScope,
  id: IdempotencyKey,
): Promise<StoredAnswer | undefined> {
  const [row] = await scope.sql<{
    request_hash: string;
    response_status: number | null;
    response_body: unknown;
  }>(
    'select request_hash, response_status, response_body from idempotency_records where client_id = ? and route = ? and key = ?',
    [scope.clientId, id.route, id.key],
  );
  return row
    ? { requestHash: row.request_hash, responseStatus: row.response_status, responseBody: row.response_body }
    : undefined;
}
