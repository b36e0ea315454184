import type { ExitMode } from '../domain/enums.js';
import { ClientSchema } from '../db/entities/client.js';
import type { Scope } from '../domain/scopes.js';
import type { SystemScope } from './scope.js';

/** `rotateClientSecret` notifies this channel with the client id in the same statement as the update. */
export const SECRET_ROTATED_CHANNEL = 'client_secret_rotated';

/**
 * A new client (`client:create`). Clients are the tenants themselves, so this is system work.
 * Idempotency: none; each call is a new client with a fresh id. No concurrency concern (new row).
 */
export async function insertClient(
  scope: SystemScope,
  client: { id: string; name: string; secretHash: string; scopes: readonly Scope[] },
): Promise<void> {
  await scope.entities(async (em) => {
    em.create(ClientSchema, {
      id: client.id,
      name: client.name,
      secretHash: client.secretHash,
      secretVersion: 1,
      allowedScopes: [...client.scopes],
    });
    await em.flush();
  });
}

/**
 * Stores a new secret hash and bumps the secret version; false for an unknown client. One statement:
 * the notification is delivered on commit, so every API instance drops its cached version. Two
 * concurrent rotations serialise on the row; the later one wins and both bumps count.
 */
export async function rotateClientSecret(
  scope: SystemScope,
  clientId: string,
  secretHash: string,
): Promise<boolean> {
  const rows = await scope.sql<{ id: string }>(
    `with rotated as (
       update clients set secret_hash = ?, secret_version = secret_version + 1 where id = ? returning id
     )
     select id, pg_notify(?, id) from rotated`,
    [secretHash, clientId, SECRET_ROTATED_CHANNEL],
  );
  return rows.length > 0;
}

/** The client's current secret version (null: no such client), read on every authenticated request. */
export async function readSecretVersion(scope: SystemScope, clientId: string): Promise<number | null> {
  const rows = await scope.sql<{ secret_version: number }>(
    'select secret_version from clients where id = ?',
    [clientId],
  );
  return rows[0]?.secret_version ?? null;
}

/** Sends `payload` on the rotation channel (a listener's own ping, to learn it has caught up). */
export async function notifySecretChannel(scope: SystemScope, payload: string): Promise<void> {
  await scope.sql('select pg_notify(?, ?)', [SECRET_ROTATED_CHANNEL, payload]);
}

/**
 * Subscribes a dedicated connection (the credential store's listener, logged in as the service
 * role like the pool's connections) to rotation notifications.
 */
export async function listenForSecretRotations(connection: {
  query: (statement: string) => Promise<unknown>;
}): Promise<void> {
  await connection.query(`listen ${SECRET_ROTATED_CHANNEL}`);
}

/** How many clients exist (the local stack seeds its demo client into an empty database). */
export async function countClients(scope: SystemScope): Promise<number> {
  return scope.entities((em) => em.count(ClientSchema, {}));
}

/** D16: the client's exit mode. Idempotent: setting the same mode again changes nothing. */
export async function setClientExitMode(
  scope: SystemScope,
  clientId: string,
  mode: ExitMode,
): Promise<boolean> {
  const rows = await scope.sql<{ id: string }>('update clients set exit_mode = ? where id = ? returning id', [
    mode,
    clientId,
  ]);
  return rows.length > 0;
}
