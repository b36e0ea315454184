import type { EntityManager } from '@mikro-orm/postgresql';

/** D4: at most this many token requests per client in any rolling window, shared by every instance. */
export const TOKEN_REQUEST_LIMIT = 100;
export const TOKEN_REQUEST_WINDOW_MS = 60 * 60 * 1000;
export const RETRY_AFTER_SECONDS = 60;

/** Advisory-lock namespace (first key of the two-key form) for per-client token request counting. */
const LOCK_NAMESPACE = 4101;

export interface ClientCredentials {
  id: string;
  secretHash: string;
  secretVersion: number;
  allowedScopes: string[];
}

export type Admission =
  | { kind: 'unknown' }
  | { kind: 'limited' }
  | { kind: 'admitted'; client: ClientCredentials; requestId: string };

interface ClientRow {
  id: string;
  secret_hash: string;
  secret_version: number;
  allowed_scopes: string[];
}

/**
 * Looks the client up and counts this request against its rolling window, race-free: a per-client
 * transaction-scoped advisory lock serialises count-then-insert across every API instance, and the
 * count runs in a statement after the lock is held, so it sees every row committed before us.
 * Unknown ids take the same lock and count (timing), but nothing is recorded for them.
 * Rows that have left the window are pruned here, keeping the table at about the limit per client.
 */
export async function admitTokenRequest(em: EntityManager, clientId: string, now: Date): Promise<Admission> {
  const windowStart = new Date(now.getTime() - TOKEN_REQUEST_WINDOW_MS);
  return em.transactional(async (tx) => {
    // The count is not worth a WAL flush, and without the wait a known id costs what an unknown one does.
    await tx.execute('set local synchronous_commit = off');
    await tx.execute('select pg_advisory_xact_lock(?, hashtext(?))', [LOCK_NAMESPACE, clientId]);
    const [client] = await tx.execute<ClientRow[]>(
      'select id, secret_hash, secret_version, allowed_scopes from clients where id = ?',
      [clientId],
    );
    const [counts] = await tx.execute<{ recent: number; stale: number }[]>(
      `select count(*) filter (where created_at > ?)::int as recent,
              count(*) filter (where created_at <= ?)::int as stale
         from token_issues where client_id = ?`,
      [windowStart, windowStart, clientId],
    );
    if (!client) {
      // Nothing to record, but the same number of round trips as the insert below (timing).
      await tx.execute('select null::bigint as id');
      return { kind: 'unknown' };
    }
    if (counts && counts.stale > 0) {
      await tx.execute('delete from token_issues where client_id = ? and created_at <= ?', [
        clientId,
        windowStart,
      ]);
    }
    if ((counts?.recent ?? 0) >= TOKEN_REQUEST_LIMIT) return { kind: 'limited' };
    const [row] = await tx.execute<{ id: string }[]>(
      'insert into token_issues (client_id, succeeded, created_at) values (?, false, ?) returning id',
      [clientId, now],
    );
    return {
      kind: 'admitted',
      requestId: String(row!.id),
      client: {
        id: client.id,
        secretHash: client.secret_hash,
        secretVersion: client.secret_version,
        allowedScopes: client.allowed_scopes,
      },
    };
  });
}

/** Records that the counted request ended in a token (for operators; the count does not depend on it). */
export async function markIssued(em: EntityManager, requestId: string): Promise<void> {
  await em.execute('update token_issues set succeeded = true where id = ?', [requestId]);
}
