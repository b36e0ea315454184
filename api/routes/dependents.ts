import { today } from '../../domain/clock.js';
import { EndorsementRefused } from '../../domain/endorsements/endorsement.js';
import { ENDORSEMENT_SCOPES, hasAnyScope } from '../../domain/scopes.js';
import { addDependentToCover, type AddedDependent } from '../../usecases/dependents/dependents.js';
import { dependentsOf } from '../../usecases/employees.js';
import { dependentNotEligible } from '../errors.js';
import { validationError } from '../errors.js';
import { addDependentPayload, listDependentsPayload, presentDependent } from '../presenters/employee.js';
import { route } from '../route.js';
import { createDependentBody, employeePathParams, newDependentFromRequest } from '../schemas/employees.js';
import { employeeNotFound } from './employees.js';
import { refusalToApiError } from './endorsements.js';

/**
 * Dependents of an employee: the people an approved ADDITION enrols beside the employee when the
 * policy's coverage type covers them. D16: one added to an employee already covered gets its own
 * ADDITION on each policy covering its relationship (answered in `endorsements`), after the
 * policies' eligibility rules (a breach is 400 DEPENDENT_NOT_ELIGIBLE naming each rule). The spec shows no endpoint; scopes follow the employee routes
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
    errors: [
      employeeNotFound(),
      dependentNotEligible('MAX_CHILDREN: relationship: the policy covers at most 2 children'),
    ],
    handler: async ({ params, body, auth, scope, deps }) => {
      // A child may be added on the day it is born; a future date is not a person yet.
      if (body.date_of_birth > today(deps.clock)) {
        throw validationError('date_of_birth: must not be in the future');
      }
      let added: AddedDependent | null;
      try {
        added = await addDependentToCover(deps, scope, params.employee_id, newDependentFromRequest(body), {
          actor: { tokenId: auth.tokenId },
          canEndorse: hasAnyScope(auth.scopes, ENDORSEMENT_SCOPES),
        });
      } catch (err) {
        if (err instanceof EndorsementRefused) throw refusalToApiError(err);
        throw err;
      }
      if (!added) throw employeeNotFound();
      return {
        dependent_id: added.id,
        endorsements: added.endorsements.map((j) => ({
          policy_id: j.policyId,
          endorsement_id: j.endorsementId,
          reason: j.reason,
        })),
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
