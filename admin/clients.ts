import type { EntityManager } from '@mikro-orm/postgresql';
import { SECRET_ROTATED_CHANNEL } from '../api/auth/credentials.js';
import { hashSecret, newClientSecret } from '../domain/credentials.js';
import { newId } from '../domain/ids.js';
import { normaliseScope, SCOPES, type Scope } from '../domain/scopes.js';

export class AdminError extends Error {}

export function parseScopes(list: string | undefined): Scope[] {
  if (!list) return [...SCOPES];
  return list.split(',').map((name) => {
    const scope = normaliseScope(name);
    if (!scope) throw new AdminError(`unknown scope "${name}"; known: ${SCOPES.join(', ')}`);
    return scope;
  });
}

/** D3: prints the secret once; only its scrypt hash is stored. */
export async function createClient(em: EntityManager, name: string, scopes: Scope[]) {
  const clientId = newId('client');
  const clientSecret = newClientSecret();
  await em
    .getConnection()
    .execute(
      "insert into clients (id, name, secret_hash, secret_version, allowed_scopes) values (?, ?, ?, 1, string_to_array(?, ','))",
      [clientId, name, await hashSecret(clientSecret), scopes.join(',')],
    );
  return { client_id: clientId, client_secret: clientSecret };
}

/** A new secret and a bumped secret version: every token issued before this stops verifying. */
export async function rotateSecret(em: EntityManager, clientId: string) {
  const clientSecret = newClientSecret();
  // One statement: the notification is delivered on commit, so API instances drop their cached version.
  const rows = await em.getConnection().execute<{ id: string }[]>(
    `with rotated as (
       update clients set secret_hash = ?, secret_version = secret_version + 1 where id = ? returning id
     )
     select id, pg_notify(?, id) from rotated`,
    [await hashSecret(clientSecret), clientId, SECRET_ROTATED_CHANNEL],
  );
  if (rows.length === 0) throw new AdminError(`no client ${clientId}`);
  return { client_id: clientId, client_secret: clientSecret };
}
