import type { EntityManager } from '@mikro-orm/postgresql';
import { insertInsurerPrincipal, listInsurersByCode } from '../data/insurer-principals.js';
import { SystemScope } from '../data/scope.js';
import { hashSecret, newClientSecret } from '../domain/credentials.js';
import { newId } from '../domain/ids.js';
import { INSURER_DECISIONS_SCOPE } from '../domain/scopes.js';
import { AdminError } from './clients.js';

/**
 * D14: credentials for an insurer to call `POST /v1/insurer/decisions`, bound to one insurer row
 * (reference data is per client: with the code loaded for several clients, `clientId` picks one).
 * Prints the secret once; only its scrypt hash is stored. Each call makes a new principal.
 */
export async function createInsurerClient(em: EntityManager, code: string, clientId?: string) {
  const system = SystemScope.of(em);
  const all = await listInsurersByCode(system, code);
  const matches = clientId ? all.filter((i) => i.clientId === clientId) : all;
  if (matches.length === 0) {
    throw new AdminError(`no insurer ${code}${clientId ? ` for client ${clientId}` : ''}`);
  }
  if (matches.length > 1) {
    const clients = matches.map((i) => i.clientId).join(', ');
    throw new AdminError(
      `insurer ${code} is loaded for several clients (${clients}); add --client CLIENT_ID`,
    );
  }
  const insurer = matches[0]!;
  const id = newId('insurerPrincipal');
  const secret = newClientSecret();
  await insertInsurerPrincipal(system, {
    id,
    insurerId: insurer.insurerId,
    secretHash: await hashSecret(secret),
  });
  return {
    client_id: id,
    client_secret: secret,
    insurer_id: insurer.insurerId,
    insurer_code: code,
    scopes: [INSURER_DECISIONS_SCOPE],
  };
}
