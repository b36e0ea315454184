import { OperatorRefusal } from '../domain/operator-refusal.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  insertClient,
  listClients as listClientRows,
  revokeClient as revokeClientRow,
  rotateClientSecret,
  setClientExitMode,
} from '../data/clients.js';
import { EXIT_MODES, type ExitMode } from '../domain/enums.js';
import { SystemScope } from '../data/scope.js';
import { hashSecret, newClientSecret } from '../domain/credentials.js';
import { newId } from '../domain/ids.js';
import { normaliseScope, SCOPES, type ClientScope } from '../domain/scopes.js';

/** A client's scopes: only SCOPES (an insurer's `insurer.decisions` is never a client's). */
export function parseScopes(list: string | undefined): ClientScope[] {
  if (!list) return [...SCOPES];
  return list.split(',').map((name) => {
    const scope = normaliseScope(name);
    if (!scope || !(SCOPES as readonly string[]).includes(scope)) {
      throw new OperatorRefusal(`unknown scope "${name}"; known: ${SCOPES.join(', ')}`);
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

/**
 * D3 `client:rotate`: a new secret (printed once) and a bumped secret version. No grace period: the
 * old secret gets no token from the commit on, and every token issued before it is refused (401).
 * A revoked client is rotated only with `reinstate`, which lifts the revocation.
 */
export async function rotateSecret(em: EntityManager, clientId: string, reinstate = false) {
  const clientSecret = newClientSecret();
  const hash = await hashSecret(clientSecret);
  const outcome = await rotateClientSecret(SystemScope.of(em), clientId, hash, reinstate);
  if (outcome === 'unknown') throw new OperatorRefusal(`no client ${clientId}`);
  if (outcome === 'revoked') {
    throw new OperatorRefusal(
      `client ${clientId} is revoked; client:rotate ${clientId} --reinstate issues a new secret and lifts the revocation`,
    );
  }
  return { client_id: clientId, client_secret: clientSecret, ...(reinstate ? { reinstated: true } : {}) };
}

/** D18 `client:revoke`: its secret and every token already issued stop at once (data/clients.ts). */
export async function revokeClient(em: EntityManager, clientId: string) {
  const revokedAt = await revokeClientRow(SystemScope.of(em), clientId);
  if (!revokedAt) throw new OperatorRefusal(`no client ${clientId}`);
  return { client_id: clientId, revoked_at: revokedAt };
}

/** D18 `client:list`: every client with its scopes, secret version and revocation; never a secret. */
export async function listClients(em: EntityManager) {
  return { clients: await listClientRows(SystemScope.of(em)) };
}

/** D16: whether a leaver's DELETIONs are created at once (`automatic`) or proposed for the client to confirm. */
export async function setExitMode(em: EntityManager, clientId: string, mode: string | undefined) {
  if (!EXIT_MODES.includes(mode as ExitMode))
    throw new OperatorRefusal(`MODE must be one of ${EXIT_MODES.join(', ')}`);
  if (!(await setClientExitMode(SystemScope.of(em), clientId, mode as ExitMode))) {
    throw new OperatorRefusal(`no client ${clientId}`);
  }
  return { client_id: clientId, exit_mode: mode };
}
