import type { Orm } from '../../db/orm.js';

/**
 * Current secret version per client, read on every authenticated request. Kept as a tiny cache with a
 * short lifetime so verification stays cheap; rotation is seen by every instance within that lifetime
 * and immediately by the instance that reads after the cache entry expires.
 */
export function createCredentialStore(orm: Orm, ttlMs = 0) {
  const cache = new Map<string, { version: number | null; at: number }>();

  async function secretVersion(clientId: string): Promise<number | null> {
    const hit = cache.get(clientId);
    const now = Date.now();
    if (hit && now - hit.at < ttlMs) return hit.version;
    const rows = await orm.em
      .getConnection()
      .execute<{ secret_version: number }[]>('select secret_version from clients where id = ?', [clientId]);
    const version = rows[0]?.secret_version ?? null;
    cache.set(clientId, { version, at: now });
    return version;
  }

  return { secretVersion, forget: (clientId: string) => cache.delete(clientId) };
}

export type CredentialStore = ReturnType<typeof createCredentialStore>;
