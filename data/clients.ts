import type { ExitMode } from '../domain/enums.js';
import { ClientSchema } from '../db/entities/client.js';
import type { Scope } from '../domain/scopes.js';
import { isoSql } from './webhooks/outbox.js';
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

/** What a rotation did: rotated, refused because the client is revoked, or no such client. */
export type RotationOutcome = 'rotated' | 'revoked' | 'unknown';

/**
 * Stores a new secret hash and bumps the secret version. One statement: the notification is
 * delivered on commit, so every API instance drops its cached version. Two concurrent rotations
 * serialise on the row; the later one wins and both bumps count. A revoked client is rotated only
 * with `reinstate`, which lifts the revocation in the same statement.
 */
export async function rotateClientSecret(
  scope: SystemScope,
  clientId: string,
  secretHash: string,
  reinstate = false,
): Promise<RotationOutcome> {
  // The outer select reads the row as it was before the update: present and not rotated is revoked.
  const rows = await scope.sql<{ outcome: 'rotated' | 'revoked' }>(
    `with rotated as (
       update clients set secret_hash = ?, secret_version = secret_version + 1, revoked_at = null
        where id = ? and (revoked_at is null or ?::boolean)
        returning id
     )
     select 'rotated' as outcome, pg_notify(?, id)::text as notified from rotated
     union all
     select 'revoked', null from clients where id = ? and not exists (select 1 from rotated)`,
    [secretHash, clientId, reinstate, SECRET_ROTATED_CHANNEL, clientId],
  );
  return rows[0]?.outcome ?? 'unknown';
}

/**
 * D18: revokes the client's credentials at once: from the commit on, its secret gets no token
 * (answered as an unknown id) and every token already issued is refused with 401, on every API
 * instance (the version bump and the notification, as for a rotation; `readSecretVersion` knows no
 * revoked client either). Idempotent: revoking again keeps the first instant and changes nothing.
 * Returns when it was revoked, or null for an unknown client.
 */
export async function revokeClient(scope: SystemScope, clientId: string): Promise<string | null> {
  const rows = await scope.sql<{ revoked_at: string }>(
    `with revoked as (
       update clients
          set secret_version = secret_version + case when revoked_at is null then 1 else 0 end,
              revoked_at = coalesce(revoked_at, now())
        where id = ?
        returning id, revoked_at
     )
     select ${isoSql('revoked_at')} as revoked_at, pg_notify(?, id) from revoked`,
    [clientId, SECRET_ROTATED_CHANNEL],
  );
  return rows[0]?.revoked_at ?? null;
}

/** A client as `client:list` shows it: never a secret nor its hash. */
export interface ClientListing {
  client_id: string;
  name: string;
  scopes: string[];
  secret_version: number;
  exit_mode: ExitMode;
  created_at: string;
  revoked_at: string | null;
  /** Tokens issued in the rolling hour of the rate limit (D4). */
  tokens_last_hour: number;
}

/** Every client, oldest first, with its revocation and its tokens of the last hour. Read only. */
export async function listClients(scope: SystemScope): Promise<ClientListing[]> {
  return scope.sql<ClientListing>(
    `select c.id as client_id, c.name, c.allowed_scopes as scopes, c.secret_version, c.exit_mode,
            ${isoSql('c.created_at')} as created_at,
            ${isoSql('c.revoked_at')} as revoked_at,
            (select count(*)::int from token_issues t
              where t.client_id = c.id and t.created_at > now() - interval '1 hour') as tokens_last_hour
       from clients c
      order by c.created_at, c.id`,
  );
}

/**
 * The client's current secret version, read on every authenticated request; null for no such
 * client and for a revoked one (its tokens are refused whatever version they carry).
 */
export async function readSecretVersion(scope: SystemScope, clientId: string): Promise<number | null> {
  const rows = await scope.sql<{ secret_version: number }>(
    'select secret_version from clients where id = ? and revoked_at is null',
    [clientId],
  );
  return rows[0]?.secret_version ?? null;
}

/** Sends `payload` on the rotation channel (a listener's own ping, to learn it has caught up). */
export async function pingSecretChannel(scope: SystemScope, payload: string): Promise<void> {
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
