import { InsurerPrincipalSchema } from '../../db/entities/insurer-principal.js';
import type { CoverageType, Relationship } from '../../domain/enums.js';
import type { InsurerScope } from './scope.js';
import type { SystemScope } from '../scope.js';

/** The insurer of a code (one platform row per code, D12); undefined for an unknown code. */
export async function findInsurerByCode(
  system: SystemScope,
  code: string,
): Promise<{ insurerId: string; name: string } | undefined> {
  const [row] = await system.sql<{ id: string; name: string }>(
    'select id, name from insurers where code = ?',
    [code],
  );
  return row && { insurerId: row.id, name: row.name };
}

/** Stores a new insurer principal (a new id each call: nothing to make idempotent). */
export async function insertInsurerPrincipal(
  system: SystemScope,
  principal: { id: string; insurerId: string; secretHash: string },
): Promise<void> {
  await system.entities(async (em) => {
    em.create(InsurerPrincipalSchema, { ...principal, secretVersion: 1 });
    await em.flush();
  });
}

/** An insurer principal as the operator's list shows it (never its secret or hash). */
export interface InsurerPrincipalListing {
  client_id: string;
  insurer_code: string;
  secret_version: number;
  created_at: string;
  revoked_at: string | null;
}

/** Every insurer principal, by insurer code then creation; `code` narrows to one insurer. */
export async function listInsurerPrincipals(
  system: SystemScope,
  code?: string,
): Promise<InsurerPrincipalListing[]> {
  return system.sql<InsurerPrincipalListing>(
    `select ip.id as client_id, i.code as insurer_code, ip.secret_version,
            to_char(ip.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as created_at,
            to_char(ip.revoked_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as revoked_at
       from insurer_principals ip join insurers i on i.id = ip.insurer_id
      ${code === undefined ? '' : 'where i.code = ?'}
      order by i.code, ip.created_at, ip.id`,
    code === undefined ? [] : [code],
  );
}

/**
 * D18: a new secret for a principal that is not revoked. One statement: the hash is replaced and the
 * secret version bumped, so from the commit the old secret issues no token and every token issued
 * before is refused (authenticateInsurer compares versions on each request). Two rotations at once
 * serialise on the row; the later one's secret is the one that works. Undefined: no such principal,
 * or it is revoked.
 */
export async function rotateInsurerPrincipal(
  system: SystemScope,
  principalId: string,
  secretHash: string,
): Promise<{ insurerCode: string; secretVersion: number } | undefined> {
  const [row] = await system.sql<{ insurer_code: string; secret_version: number }>(
    `update insurer_principals ip set secret_hash = ?, secret_version = ip.secret_version + 1
       from insurers i
      where ip.id = ? and ip.revoked_at is null and i.id = ip.insurer_id
      returning i.code as insurer_code, ip.secret_version`,
    [secretHash, principalId],
  );
  return row && { insurerCode: row.insurer_code, secretVersion: row.secret_version };
}

/**
 * D18: revokes a principal. Idempotent: the first revocation's time stays. From the commit its secret
 * issues no token and each request with a token it was issued is refused (401). Undefined: no such
 * principal.
 */
export async function revokeInsurerPrincipal(
  system: SystemScope,
  principalId: string,
): Promise<{ insurerCode: string; revokedAt: string } | undefined> {
  const [row] = await system.sql<{ insurer_code: string; revoked_at: string }>(
    `update insurer_principals ip set revoked_at = coalesce(ip.revoked_at, now())
       from insurers i
      where ip.id = ? and i.id = ip.insurer_id
      returning i.code as insurer_code,
                to_char(ip.revoked_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as revoked_at`,
    [principalId],
  );
  return row && { insurerCode: row.insurer_code, revokedAt: row.revoked_at };
}

/**
 * What authenticating an insurer's token needs: its insurer and current secret version. Undefined
 * for an unknown or revoked principal, so a revoked principal's tokens are refused from the commit
 * of its revocation (this is read on every request, no cache).
 */
export async function readInsurerPrincipal(
  system: SystemScope,
  principalId: string,
): Promise<{ insurerId: string; secretVersion: number } | undefined> {
  const [row] = await system.sql<{ insurer_id: string; secret_version: number }>(
    'select insurer_id, secret_version from insurer_principals where id = ? and revoked_at is null',
    [principalId],
  );
  return row ? { insurerId: row.insurer_id, secretVersion: row.secret_version } : undefined;
}

/**
 * Of the given endorsement ids, those routed to the scope's insurer (through their policy), with
 * the answer an id gets otherwise left to the caller: "not found", the same for another insurer's
 * endorsement as for an unknown id. One statement for the whole batch.
 */
export async function endorsementsRoutedTo(
  scope: InsurerScope,
  ids: readonly string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await scope.sql<{ id: string }>(
    `select e.id from endorsements e join policies p on p.id = e.policy_id
      where e.id in (?) and p.insurer_id = ?`,
    [ids, scope.insurerId],
  );
  return new Set(rows.map((r) => r.id));
}

/** A dependent the endorsement's employee has, as a response row is matched to it (D14). */
export interface EndorsementDependent {
  endorsement_id: string;
  dependent_id: string;
  relationship: Relationship;
  date_of_birth: string;
  coverage_type: CoverageType;
}

/**
 * The dependents of the employees of the given endorsements routed to the scope's insurer, with
 * the policy's coverage type (which of them the approval enrols). One statement for the batch.
 */
export async function dependentsOfRoutedEndorsements(
  scope: InsurerScope,
  ids: readonly string[],
): Promise<EndorsementDependent[]> {
  if (ids.length === 0) return [];
  return scope.sql<EndorsementDependent>(
    `select e.id as endorsement_id, d.id as dependent_id, d.relationship,
            d.date_of_birth::text as date_of_birth, p.coverage_type
       from endorsements e
       join policies p on p.id = e.policy_id
       join dependents d on d.client_id = e.client_id and d.employee_id = e.employee_id
      where e.id in (?) and p.insurer_id = ?
      order by e.id, d.id`,
    [ids, scope.insurerId],
  );
}
