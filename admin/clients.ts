import type { EntityManager } from '@mikro-orm/postgresql';
import { insertClient, rotateClientSecret } from '../data/clients.js';
import { SystemScope } from '../data/scope.js';
import { hashSecret, newClientSecret } from '../domain/credentials.js';
import { newId } from '../domain/ids.js';
import { normaliseScope, SCOPES, type ClientScope } from '../domain/scopes.js';

export class AdminError extends Error {}

/** A client's scopes: only SCOPES (an insurer's `insurer.decisions` is never a client's). */
export function parseScopes(list: string | undefined): ClientScope[] {
  if (!list) return [...SCOPES];
  return list.split(',').map((name) => {
    const scope = normaliseScope(name);
    if (!scope || !(SCOPES as readonly string[]).includes(scope)) {
      throw new AdminError(`unknown scope "${name}"; known: ${SCOPES.join(', ')}`);
    }
    return scope as ClientScope;
  });
}

/** D3: prints the secret once; only its scrypt hash is stored. */
export async function createClient(em: EntityManager, name: string, scopes: ClientScope[]) {
  const clientId = newId('client');
  const clientSecret = newClientSecret();
  const secretHash = await hashSecret(clientSecret);
  await insertClient(SystemScope.of(em), { id: clientId, name, secretHash, scopes });
  return { client_id: clientId, client_secret: clientSecret };
}

/** A new secret and a bumped secret version: every token issued before this stops verifying. */
export async function rotateSecret(em: EntityManager, clientId: string) {
  const clientSecret = newClientSecret();
  const rotated = await rotateClientSecret(SystemScope.of(em), clientId, await hashSecret(clientSecret));
  if (!rotated) throw new AdminError(`no client ${clientId}`);
  return { client_id: clientId, client_secret: clientSecret };
}
