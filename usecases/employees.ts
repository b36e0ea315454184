import { listDependents, type DependentRecord } from '../data/dependents/dependents.js';
import {
  bulkUpdateEmployees,
  createOrFindEmployee,
  findEmployeeProfile,
  updateEmployee,
  type EmployeeProfile,
} from '../data/employees.js';
import type { TenantScope } from '../data/scope.js';
import {
  withCreationLeavingDate,
  type Actor,
  type BulkItem,
  type EmployeeChanges,
  type NewEmployee,
} from '../domain/employees.js';

/** Spec 4.6: creates the employee, or answers the one the client already has (D6). */
export const createEmployee = (
  scope: TenantScope,
  input: NewEmployee,
  opts: { today: string; actor: Actor },
): Promise<{ id: string; created: boolean }> =>
  createOrFindEmployee(scope, withCreationLeavingDate(input, opts.today), opts.actor);

/** Spec 4.5: the client's employee, or null (another client's employee is unknown here, D1). */
export const employeeProfile = (scope: TenantScope, employeeId: string): Promise<EmployeeProfile | null> =>
  findEmployeeProfile(scope, employeeId);

/** Spec 4.7: applies the fields present; null when the employee is not the client's. */
export const changeEmployee = (
  scope: TenantScope,
  employeeId: string,
  changes: EmployeeChanges,
  opts: { today: string; actor: Actor },
): Promise<{ changedFields: string[] } | null> => updateEmployee(scope, employeeId, changes, opts);

/** Spec 4.8: writes the valid items; answers which employee ids are the client's. */
export const bulkUpdateLastActive = (
  scope: TenantScope,
  items: readonly BulkItem[],
  actor: Actor,
  today: string,
): Promise<Set<string>> => bulkUpdateEmployees(scope, items, actor, today);

/** The dependents of the client's employee; null for an unknown employee. */
export const dependentsOf = (scope: TenantScope, employeeId: string): Promise<DependentRecord[] | null> =>
  listDependents(scope, employeeId);
