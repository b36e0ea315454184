import { DependentSchema, EmployeeSchema } from '../../db/entities/index.js';
import { NO_ACTOR, type Actor, type NewDependent } from '../../domain/employees.js';
import type { Gender, Relationship } from '../../domain/enums.js';
import { newId } from '../../domain/ids.js';
import { recordAudit } from '../audit.js';
import type { TenantScope } from '../scope.js';

/**
 * Adds a dependent to the client's employee. Idempotent on the person: the unique key (client,
 * employee, relationship, lower(name), date_of_birth) turns a repeated add, also a racing one, into
 * the existing dependent. Returns null when the employee is not the client's.
 */
export async function addDependent(
  scope: TenantScope,
  employeeId: string,
  input: NewDependent,
  actor: Actor = NO_ACTOR,
): Promise<{ id: string; created: boolean } | null> {
  return scope.transaction(async (tx) => {
    // FOR SHARE: the employee cannot vanish or change tenant under the insert.
    const owner = await tx.sql('select 1 from employees where client_id = ? and id = ? for share', [
      tx.clientId,
      employeeId,
    ]);
    if (owner.length === 0) return null;
    const params = [tx.clientId, employeeId, input.relationship, input.name, input.dateOfBirth];
    const inserted = await tx.sql<{ id: string }>(
      `insert into dependents (id, client_id, employee_id, relationship, name, date_of_birth, gender, event_date)
       values (?, ?, ?, ?, ?, ?, ?, ?) on conflict do nothing returning id`,
      [newId('dependent'), ...params, input.gender, input.eventDate ?? null],
    );
    const id = inserted[0]?.id;
    if (!id) {
      const found = await tx.sql<{ id: string }>(
        `select id from dependents where client_id = ? and employee_id = ? and relationship = ?
            and lower(name) = lower(?) and date_of_birth = ?`,
        params,
      );
      return { id: found[0]!.id, created: false };
    }
    await recordAudit(tx, {
      clientId: tx.clientId,
      entity: 'employee',
      entityId: employeeId,
      action: 'dependent_create',
      changedFields: ['dependents'],
      actorTokenId: actor.tokenId,
    });
    return { id, created: true };
  });
}

export interface DependentRecord {
  id: string;
  employeeId: string;
  name: string;
  relationship: Relationship;
  dateOfBirth: string;
  gender: Gender;
  eventDate: string | null;
}

/**
 * The dependents of the client's employee, oldest first; null when the employee is not the client's.
 * Both reads are entity queries under the scope's tenant filter (D1).
 */
export async function listDependents(
  scope: TenantScope,
  employeeId: string,
): Promise<DependentRecord[] | null> {
  const dependents = await scope.entities(async (em) => {
    const employee = await em.findOne(EmployeeSchema, { id: employeeId }, { fields: ['id'] });
    if (!employee) return null;
    return em.find(
      DependentSchema,
      { employeeId: employee.id },
      { orderBy: { createdAt: 'asc', id: 'asc' } },
    );
  });
  if (!dependents) return null;
  return dependents.map((d) => ({
    id: d.id,
    employeeId: d.employeeId,
    name: d.name,
    relationship: d.relationship,
    dateOfBirth: d.dateOfBirth,
    gender: d.gender,
    eventDate: d.eventDate ?? null,
  }));
}
