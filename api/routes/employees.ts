import { today } from '../../domain/clock.js';
import { EmailInUseError, type BulkItem } from '../../domain/employees.js';
import {
  bulkUpdateLastActive,
  changeEmployee,
  createEmployee,
  employeeProfile,
} from '../../usecases/employees.js';
import { pendingExitsOf, processExits } from '../../usecases/endorsements/exits.js';
import { ApiError, conflict, notFound, payloadTooLarge, validationError } from '../errors.js';
import {
  bulkUpdatePayload,
  employeeIdPayload,
  getEmployeePayload,
  presentEmployee,
} from '../presenters/employee.js';
import { route } from '../route.js';
import {
  bulkUpdateBody,
  bulkUpdateItem,
  createEmployeeBody,
  employeeChangesFromRequest,
  employeePathParams,
  MAX_BULK_ITEMS,
  newEmployeeFromRequest,
  profileQuery,
  storedStatus,
  updateEmployeeBody,
} from '../schemas/employees.js';
import { describeIssues } from '../validation.js';

export const employeeNotFound = () => notFound('Employee Not Found');
const tooManyEmployees = () =>
  payloadTooLarge('Too Many Employees', `employees: must have at most ${MAX_BULK_ITEMS} items`);
const emailInUse = () =>
  conflict('Email Already In Use', 'email: is the official email of another employee of this client');

/** D6: a date of birth is a day before today (Asia/Kolkata, from the injectable clock). */
export function assertBornBefore(field: string, date: string | undefined, day: string): void {
  if (date !== undefined && date >= day) throw validationError(`${field}: must be a date in the past`);
}

type BulkResult = { emp_id: string; success: boolean; error?: string };
type CheckedItem = { item: BulkItem; error?: undefined } | { item?: undefined; error: string; empId: string };

/** One bulk item on its own: a bad item fails alone, in place (D6). */
function checkItem(raw: unknown): CheckedItem {
  const parsed = bulkUpdateItem.safeParse(raw);
  if (parsed.success) {
    const { emp_id, last_active_date, status, date_of_leaving } = parsed.data;
    return {
      item: {
        employeeId: emp_id,
        lastActiveDate: last_active_date,
        status: status && storedStatus(status),
        dateOfLeaving: date_of_leaving,
      },
    };
  }
  const sent = (raw as { emp_id?: unknown } | null)?.emp_id;
  const error = describeIssues(parsed.error.issues, raw).replace(/^body: /, 'item: ');
  return { error, empId: typeof sent === 'string' ? sent : '' };
}

export const employeeRoutes = [
  route({
    method: 'POST',
    path: '/v1/client/employees',
    operationId: 'createEmployee',
    summary: 'Create employee (idempotent on employee_id and on the official email)',
    description:
      'Idempotent: an employee_id or official email already known to the client answers 200 with ' +
      '`Employee already exists` and the existing id; nothing is changed (D6).',
    scopes: ['employee.create', 'employee.all'],
    body: createEmployeeBody,
    response: employeeIdPayload,
    handler: async ({ body, auth, scope, deps }) => {
      const day = today(deps.clock);
      assertBornBefore('date_of_birth', body.date_of_birth, day);
      const { id, created } = await createEmployee(scope, newEmployeeFromRequest(body), {
        today: day,
        actor: { tokenId: auth.tokenId },
      });
      return {
        employee_id: id,
        message: created ? 'Employee created successfully' : 'Employee already exists',
        success: true,
      };
    },
  }),
  route({
    method: 'GET',
    path: '/v1/client/employees/profile',
    operationId: 'getEmployeeProfile',
    summary: 'Get employee',
    scopes: ['employee.get', 'employee.all'],
    query: profileQuery,
    response: getEmployeePayload,
    errors: [employeeNotFound()],
    invalidQuery: (detail) => new ApiError(400, 'MISSING_EMPLOYEE_ID', 'Employee ID is required', detail),
    handler: async ({ query, scope, deps }) => {
      // Filtered by the token's client (D1): another client's employee answers exactly as an unknown one.
      const employee = await employeeProfile(scope, query.employee_id);
      if (!employee) throw employeeNotFound();
      // D16: only a leaver can have exits pending; the active employee's hot read stays one statement.
      const exits = employee.dateOfLeaving ? await pendingExitsOf(deps, scope, employee.id) : [];
      return {
        employee: presentEmployee(employee),
        pending_exits: exits.map((x) => ({ policy_id: x.policyId, coverage_end_date: x.dateOfLeaving })),
        message: 'Employee fetched successfully',
        success: true,
      };
    },
  }),
  route({
    method: 'PATCH',
    path: '/v1/client/employees/bulk',
    operationId: 'bulkUpdateEmployees',
    summary: 'Bulk update employees (1..100 items, per-item results in request order)',
    description:
      'An item with an unknown or missing emp_id or a bad date fails alone, in `results`; the others are applied (D6).',
    scopes: ['employee.update', 'employee.all'],
    body: bulkUpdateBody,
    response: bulkUpdatePayload,
    errors: [tooManyEmployees()],
    handler: async ({ body, auth, scope, deps }) => {
      if (body.employees.length > MAX_BULK_ITEMS) {
        throw tooManyEmployees();
      }
      const checked = body.employees.map(checkItem);
      const valid = checked.flatMap((c) => (c.item ? [c.item] : []));
      const actor = { tokenId: auth.tokenId };
      const known = await bulkUpdateLastActive(scope, valid, actor, today(deps.clock));
      const leavers = valid.filter((i) => i.status !== undefined && known.has(i.employeeId));
      await processExits(deps, scope, [...new Set(leavers.map((i) => i.employeeId))], actor);
      const results = checked.map((c): BulkResult => {
        if (!c.item) return { emp_id: c.empId, success: false, error: c.error };
        const emp_id = c.item.employeeId;
        return known.has(emp_id)
          ? { emp_id, success: true }
          : { emp_id, success: false, error: 'Employee Not Found' };
      });
      return { success: true, results };
    },
  }),
  route({
    method: 'PUT',
    path: '/v1/client/employees/:employee_id',
    operationId: 'updateEmployee',
    summary: 'Update employee (only the fields present change)',
    scopes: ['employee.update', 'employee.all'],
    params: employeePathParams,
    body: updateEmployeeBody,
    response: employeeIdPayload,
    errors: [employeeNotFound(), emailInUse()],
    handler: async ({ params, body, auth, scope, deps }) => {
      const day = today(deps.clock);
      assertBornBefore('date_of_birth', body.date_of_birth, day);
      const actor = { tokenId: auth.tokenId };
      try {
        const updated = await changeEmployee(scope, params.employee_id, employeeChangesFromRequest(body), {
          today: day,
          actor,
        });
        if (!updated) throw employeeNotFound();
        // D16: an exit (inactive, its leaving date) ends cover; idempotent, so a repeat creates nothing.
        if (body.status !== undefined && body.status !== 'EMPLOYEE_STATUS_ACTIVE') {
          await processExits(deps, scope, [params.employee_id], actor);
        }
      } catch (err) {
        if (err instanceof EmailInUseError) {
          throw emailInUse();
        }
        throw err;
      }
      return { employee_id: params.employee_id, message: 'Employee updated successfully', success: true };
    },
  }),
];
