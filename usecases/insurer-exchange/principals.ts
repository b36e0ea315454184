import type { EntityManager } from '@mikro-orm/postgresql';
import {
  findInsurerByCode,
  insertInsurerPrincipal,
  listInsurerPrincipals,
  revokeInsurerPrincipal,
  rotateInsurerPrincipal,
} from '../../data/insurer-exchange/principals.js';
import { SystemScope } from '../../data/scope.js';
import { hashSecret, newClientSecret } from '../../domain/credentials.js';
import { newId } from '../../domain/ids.js';
import { INSURER_SCOPES } from '../../domain/scopes.js';
import { OperatorRefusal } from '../../domain/operator-refusal.js';

/**
 * D14: credentials for an insurer (one platform row per code, D12), for the insurer routes: it sees
 * and decides the endorsements of every client's policies with that insurer. Prints the secret once;
 * only its scrypt hash is stored. Each call makes a new principal (an insurer may hold several, e.g.
 * one per system of its own, each listed, rotated and revoked on its own).
 */
export async function createInsurerClient(em: EntityManager, code: string) {
  const system = SystemScope.of(em);
  const insurer = await findInsurerByCode(system, code);
  if (!insurer) throw new OperatorRefusal(`no insurer ${code}`);
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
    scopes: [...INSURER_SCOPES],
  };
}

/** D18: every insurer principal (id, insurer, secret version, when created and revoked); never a secret. */
export async function listInsurerClients(em: EntityManager, code?: string) {
  return listInsurerPrincipals(SystemScope.of(em), code);
}

/**
 * D18: a new secret, printed once. The old secret stops at once, and so does every token issued
 * with it: no grace period (a rotation after a leak must end the leak; an insurer that wants no gap
 * creates a second principal, switches over, and revokes the first).
 */
export async function rotateInsurerClient(em: EntityManager, principalId: string) {
  const secret = newClientSecret();
  const rotated = await rotateInsurerPrincipal(SystemScope.of(em), principalId, await hashSecret(secret));
  if (!rotated) throw new OperatorRefusal(`no insurer client ${principalId} (or it is revoked)`);
  return {
    client_id: principalId,
    client_secret: secret,
    insurer_code: rotated.insurerCode,
    secret_version: rotated.secretVersion,
  };
}

/** D18: revokes a principal for good: its secret issues no token and its tokens are refused (401) from now. */
export async function revokeInsurerClient(em: EntityManager, principalId: string) {
  const revoked = await revokeInsurerPrincipal(SystemScope.of(em), principalId);
  if (!revoked) throw new OperatorRefusal(`no insurer client ${principalId}`);
  return { client_id: principalId, insurer_code: revoked.insurerCode, revoked_at: revoked.revokedAt };
}
