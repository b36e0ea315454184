import { today } from '../../domain/clock.js';
import { addEmployeeDependent, dependentsOf } from '../../usecases/employees.js';
import { validationError } from '../errors.js';
import { addDependentPayload, listDependentsPayload, presentDependent } from '../presenters/employee.js';
import { route } from '../route.js';
import { createDependentBody, employeePathParams, newDependentFromRequest } from '../schemas/employees.js';
import { employeeNotFound } from './employees.js';

/**
 * Dependents of an employee: the people an approved ADDITION enrols beside the employee when the
 * policy's coverage type covers them. The spec shows no endpoint; scopes follow the employee routes
 * (read like Get Employee, write like Update Employee).
 */
export const dependentRoutes = [
  route({
    method: 'POST',
    path: '/v1/client/employees/:employee_id/dependents',
    operationId: 'addDependent',
    summary: 'Add a dependent (idempotent on relationship, name and date of birth)',
    scopes: ['employee.update', 'employee.all'],
    params: employeePathParams,
    body: createDependentBody,
    response: addDependentPayload,
    errors: [employeeNotFound()],
    handler: async ({ params, body, auth, scope, deps }) => {
      // A child may be added on the day it is born; a future date is not a person yet.
      if (body.date_of_birth > today(deps.clock)) {
        throw validationError('date_of_birth: must not be in the future');
      }
      const added = await addEmployeeDependent(scope, params.employee_id, newDependentFromRequest(body), {
        tokenId: auth.tokenId,
      });
      if (!added) throw employeeNotFound();
      return {
        dependent_id: added.id,
        message: added.created ? 'Dependent added successfully' : 'Dependent already exists',
        success: true,
      };
    },
  }),
  route({
    method: 'GET',
    path: '/v1/client/employees/:employee_id/dependents',
    operationId: 'listDependents',
    summary: 'List the dependents of an employee',
    scopes: ['employee.get', 'employee.all'],
    params: employeePathParams,
    response: listDependentsPayload,
    errors: [employeeNotFound()],
    handler: async ({ params, scope }) => {
      // Both reads go through the tenant filter (D1): another client's employee is unknown here.
      const dependents = await dependentsOf(scope, params.employee_id);
      if (!dependents) throw employeeNotFound();
      return {
        dependents: dependents.map(presentDependent),
        message: 'Dependents fetched successfully',
        success: true,
      };
    },
  }),
];
