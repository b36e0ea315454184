import type { EntityManager } from '@mikro-orm/postgresql';
import { insertClient, rotateClientSecret, setClientExitMode } from '../data/clients.js';
import { EXIT_MODES, type ExitMode } from '../domain/enums.js';
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

/** D16: whether a leaver's DELETIONs are created at once (`automatic`) or proposed for the client to confirm. */
export async function setExitMode(em: EntityManager, clientId: string, mode: string | undefined) {
  if (!EXIT_MODES.includes(mode as ExitMode))
    throw new AdminError(`MODE must be one of ${EXIT_MODES.join(', ')}`);
  if (!(await setClientExitMode(SystemScope.of(em), clientId, mode as ExitMode))) {
    throw new AdminError(`no client ${clientId}`);
  }
  return { client_id: clientId, exit_mode: mode };
}
