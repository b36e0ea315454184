import { InsurerPrincipalSchema } from '../db/entities/insurer-principal.js';
import type { CoverageType, Relationship } from '../domain/enums.js';
import type { InsurerScope } from './insurer-scope.js';
import type { SystemScope } from './scope.js';

/** An insurer row a principal can be bound to (operator command: across clients, by code). */
export interface InsurerChoice {
  insurerId: string;
  clientId: string;
  name: string;
}

/** Every insurer row with this code (reference data is per client, so one code may have several). */
export async function listInsurersByCode(system: SystemScope, code: string): Promise<InsurerChoice[]> {
  const rows = await system.sql<{ id: string; client_id: string; name: string }>(
    'select id, client_id, name from insurers where code = ? order by client_id',
    [code],
  );
  return rows.map((r) => ({ insurerId: r.id, clientId: r.client_id, name: r.name }));
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

/** What authenticating an insurer's token needs: its insurer and current secret version. */
export async function readInsurerPrincipal(
  system: SystemScope,
  principalId: string,
): Promise<{ insurerId: string; secretVersion: number } | undefined> {
  const [row] = await system.sql<{ insurer_id: string; secret_version: number }>(
    'select insurer_id, secret_version from insurer_principals where id = ?',
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
