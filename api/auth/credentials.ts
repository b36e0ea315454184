import { randomUUID } from 'node:crypto';
import pg from 'pg';
import {
  listenForSecretRotations,
  pingSecretChannel,
  readSecretVersion,
  SECRET_ROTATED_CHANNEL,
} from '../../data/clients.js';
import { SystemScope } from '../../data/scope.js';
import type { Orm } from '../../db/orm.js';
import type { Logger } from '../../infra/logger.js';

export { SECRET_ROTATED_CHANNEL };

/** Shown in pg_stat_activity, so operators can tell the listener connections apart. */
export const LISTENER_NAME = 'secret-rotation-listener';
const SYNC_PREFIX = 'sync:';
/** Backstop against a listener that is silently gone (half-open TCP): no entry is trusted longer. */
const ENTRY_TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;
const RECONNECT_MIN_MS = 500;
const RECONNECT_MAX_MS = 30_000;
const SYNC_TIMEOUT_MS = 5_000;
/** An instance without traffic gives its listener connection back; the next request reconnects. */
const IDLE_RELEASE_MS = 60_000;

export interface CredentialStoreOptions {
  /** Defaults to the ORM's connection URL. */
  databaseUrl?: string;
  logger?: Logger;
  /** false: no listener, every call reads PostgreSQL. */
  listen?: boolean;
  idleReleaseMs?: number;
}

/** idle: may connect now; waiting: a reconnect is scheduled (back-off). */
type State = 'idle' | 'waiting' | 'connecting' | 'listening' | 'closed';

/**
 * The current secret version per client, asked on every authenticated request (D3).
 *
 * Correctness across processes: versions are cached only while a LISTEN connection on
 * SECRET_ROTATED_CHANNEL is up, and a notification drops the client's entry. Without the listener
 * (not yet connected, lost, reconnecting) every call reads PostgreSQL. A read that overlaps a
 * notification or a (re)connect is not cached (the generation check), so a stale version can
 * never be stored after its invalidation. A rotation is therefore seen by every instance as soon as
 * PostgreSQL delivers the notification (milliseconds after commit). The listener starts on the
 * first request and is given back after a minute without any, so idle instances hold no connection.
 */
export function createCredentialStore(orm: Orm, options: CredentialStoreOptions = {}) {
  const databaseUrl = options.databaseUrl ?? orm.config.get('clientUrl');
  // Secret versions are read before the caller's tenant is known (that is what they check).
  const system = SystemScope.of(orm.em);
  const cache = new Map<string, { version: number | null; at: number }>();
  const syncWaiters = new Map<string, () => void>();
  let state: State = options.listen === false || !databaseUrl ? 'closed' : 'idle';
  let listener: pg.Client | null = null;
  let generation = 0;
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;
  let idleCheck: NodeJS.Timeout | undefined;
  let lastUsed = performance.now();
  const idleReleaseMs = options.idleReleaseMs ?? IDLE_RELEASE_MS;

  function invalidateAll(): void {
    generation++;
    cache.clear();
  }

  function onNotification(payload: string | undefined): void {
    generation++;
    if (payload?.startsWith(SYNC_PREFIX)) {
      syncWaiters.get(payload)?.();
      return;
    }
    if (payload) cache.delete(payload);
    else cache.clear();
  }

  /** Detaches the listener; from here on nothing is served from memory. */
  async function detach(): Promise<void> {
    const client = listener;
    listener = null;
    clearInterval(idleCheck);
    invalidateAll();
    client?.removeAllListeners('notification');
    await client?.end().catch(() => undefined);
  }

  function releaseIfIdle(): void {
    if (state !== 'listening' || performance.now() - lastUsed < idleReleaseMs) return;
    void detach();
    state = 'idle';
  }

  function lost(client: pg.Client, err?: Error): void {
    if (listener !== client) return;
    void detach();
    if (state === 'closed') return;
    state = 'waiting';
    failures++;
    options.logger?.warn(
      { err: err?.message, failures },
      'secret rotation listener lost; reading PostgreSQL',
    );
    const delay = Math.min(RECONNECT_MAX_MS, RECONNECT_MIN_MS * 2 ** Math.min(failures, 10));
    retry = setTimeout(() => {
      if (state !== 'waiting') return;
      state = 'idle';
      void connect();
    }, delay);
    retry.unref();
  }

  async function connect(): Promise<void> {
    if (state !== 'idle') return;
    state = 'connecting';
    const client = new pg.Client({
      connectionString: databaseUrl,
      keepAlive: true,
      application_name: LISTENER_NAME,
    });
    listener = client;
    client.on('notification', (msg) => onNotification(msg.payload));
    client.on('error', (err) => lost(client, err));
    client.on('end', () => lost(client));
    try {
      await client.connect();
      await listenForSecretRotations(client);
      if (listener !== client) return;
      // Anything read before LISTEN took effect may have missed a rotation.
      invalidateAll();
      state = 'listening';
      failures = 0;
      idleCheck = setInterval(releaseIfIdle, Math.max(10, idleReleaseMs / 4));
      idleCheck.unref();
    } catch (err) {
      lost(client, err as Error);
    }
  }

  /** `atLeast`: a cached version below it is stale (a rotation not yet announced here) and is re-read. */
  async function secretVersion(clientId: string, atLeast = 0): Promise<number | null> {
    const now = performance.now();
    lastUsed = now;
    if (state === 'idle') void connect();
    const hit = state === 'listening' ? cache.get(clientId) : undefined;
    if (hit && now - hit.at < ENTRY_TTL_MS && (hit.version ?? 0) >= atLeast) return hit.version;
    const seen = generation;
    const version = await readSecretVersion(system, clientId);
    if (state === 'listening' && seen === generation) {
      if (cache.size >= MAX_ENTRIES) cache.clear();
      cache.set(clientId, { version, at: now });
    }
    return version;
  }

  /**
   * Resolves once every rotation committed before the call has been applied here: PostgreSQL
   * delivers notifications in commit order, so our own ping arriving means the earlier ones have.
   */
  async function sync(): Promise<void> {
    if (state !== 'listening') {
      invalidateAll();
      return;
    }
    const key = `${SYNC_PREFIX}${randomUUID()}`;
    let timer: NodeJS.Timeout | undefined;
    const arrived = new Promise<void>((resolve) => {
      syncWaiters.set(key, resolve);
      timer = setTimeout(() => {
        invalidateAll();
        resolve();
      }, SYNC_TIMEOUT_MS);
    });
    try {
      await pingSecretChannel(system, key);
      await arrived;
    } finally {
      clearTimeout(timer);
      syncWaiters.delete(key);
    }
  }

  async function close(): Promise<void> {
    state = 'closed';
    clearTimeout(retry);
    await detach();
  }

  return {
    secretVersion,
    sync,
    close,
    /** Starts the listener now instead of on the first request; resolves when it is up or has failed. */
    start: connect,
    /** Whether versions are currently served from the cache (false: every call reads PostgreSQL). */
    get listening(): boolean {
      return state === 'listening';
    },
  };
}

export type CredentialStore = ReturnType<typeof createCredentialStore>;
