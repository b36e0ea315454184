import { z } from 'zod';
import type { DependentRecord } from '../../data/dependents/dependents.js';
import type { EmployeeProfile } from '../../data/employees.js';
import { EMPLOYEE_STATUSES } from '../../domain/enums.js';
import { RELATIONSHIP_REQUEST } from '../schemas/employees.js';
import { dateOut, idOut, outcome } from '../schemas/responses.js';
import { GENDER_RESPONSE, RESPONSE_GENDERS } from './member.js';

/**
 * D6: every response answers the documented Get Employee spellings, male without the prefix the others
 * carry; dependents (not in the spec) answer the same, so one client-side mapping reads every response.
 */
const RESPONSE_GENDER = GENDER_RESPONSE;

/** Spec 2.4 types every field as a string: an unset date or text is "". */
const str = (value: string | null | undefined): string => value ?? '';

/** A date spec 2.4 types as a string that is "" while unset. */
const dateOrEmpty = z.union([dateOut, z.literal('')]);

/** The Employee object of spec 2.4. */
export const employeeSchema = z
  .object({
    id: idOut('emp_5t9c2m7h1d'),
    user_id: z.string(),
    client_id: z.string(),
    employee_id: z.string().meta({ description: "The client's own employee identifier" }),
    name: z.string(),
    email: z.string(),
    phone_number: z.string(),
    date_of_birth: dateOrEmpty,
    gender: z.enum(RESPONSE_GENDERS),
    designation: z.string(),
    department: z.string(),
    date_of_joining: dateOrEmpty,
    date_of_leaving: dateOrEmpty.meta({ description: '"" while ACTIVE (D6)' }),
    address: z.string(),
    personal_email: z.string(),
    personal_phone_number: z.string(),
    is_admin: z.boolean(),
    status: z.enum(EMPLOYEE_STATUSES),
    last_active_date: dateOrEmpty,
  })
  .meta({ id: 'Employee', description: 'An employee as Get Employee answers it (spec 2.4, D6).' });
export type EmployeeOut = z.infer<typeof employeeSchema>;

export const dependentSchema = z
  .object({
    dependent_id: idOut('dep_6w1z8c3n5v'),
    employee_id: z.string(),
    name: z.string(),
    relationship: z.enum(RELATIONSHIP_REQUEST),
    date_of_birth: dateOrEmpty,
    gender: z.enum(RESPONSE_GENDERS),
    event_date: dateOrEmpty.meta({ description: 'D16: the life event it joined on; "" when none was given' }),
  })
  .meta({
    id: 'Dependent',
    description: 'A dependent of an employee; gender in the response spellings of Get Employee.',
  });
export type DependentOut = z.infer<typeof dependentSchema>;

export function presentEmployee(e: EmployeeProfile): EmployeeOut {
  return {
    id: e.id,
    user_id: e.userId,
    client_id: e.clientId,
    employee_id: e.employeeCode,
    name: e.name,
    email: e.email,
    phone_number: e.phoneNumber,
    date_of_birth: str(e.dateOfBirth),
    gender: RESPONSE_GENDER[e.gender],
    designation: e.designation,
    department: e.department,
    date_of_joining: str(e.dateOfJoining),
    // D6: "" while active, whatever is stored.
    date_of_leaving: e.status === 'ACTIVE' ? '' : str(e.dateOfLeaving),
    address: e.address,
    personal_email: e.personalEmail,
    personal_phone_number: e.personalPhoneNumber,
    is_admin: e.isAdmin,
    status: e.status,
    last_active_date: str(e.lastActiveDate),
  };
}

export function presentDependent(d: DependentRecord): DependentOut {
  return {
    dependent_id: d.id,
    employee_id: d.employeeId,
    name: d.name,
    relationship: d.relationship,
    date_of_birth: str(d.dateOfBirth),
    gender: RESPONSE_GENDER[d.gender],
    event_date: str(d.eventDate),
  };
}

/** Spec 4.5. */
export const getEmployeePayload = z
  .object({
    employee: employeeSchema,
    pending_exits: z
      .array(z.object({ policy_id: z.string(), coverage_end_date: dateOut }).meta({ id: 'PendingExit' }))
      .meta({
        description:
          "D16: a leaver's cover that outlasts date_of_leaving with no DELETION under way: in the `proposed` exit " +
          'mode, confirm one by creating the DELETION (coverage_end_date the leaving date); empty otherwise',
      }),
    ...outcome('Employee fetched successfully'),
  })
  .meta({ id: 'GetEmployeePayload' });

/** Spec 4.6 and 4.7: the service-assigned id of the employee created, found or updated. */
export const employeeIdPayload = z
  .object({ employee_id: idOut('emp_5t9c2m7h1d'), ...outcome('Employee created successfully') })
  .meta({ id: 'EmployeeIdPayload' });

/** Spec 2.8 and 4.8: one result per item, in request order. */
export const bulkUpdatePayload = z
  .object({
    success: z.literal(true).meta({ description: 'The request was valid; see results for each item' }),
    results: z.array(
      z
        .object({
          emp_id: z.string(),
          success: z.boolean(),
          error: z.string().optional().meta({ description: 'Present only when success is false' }),
        })
        .meta({ id: 'BulkResult' }),
    ),
  })
  .meta({ id: 'BulkUpdatePayload' });

export const addDependentPayload = z
  .object({
    dependent_id: idOut('dep_6w1z8c3n5v'),
    endorsements: z
      .array(
        z
          .object({
            policy_id: z.string(),
            endorsement_id: z
              .string()
              .nullable()
              .meta({ description: 'The ADDITION started; null when none was' }),
            reason: z.string().nullable().meta({ description: 'Why none was started (e.g. one still open)' }),
          })
          .meta({ id: 'DependentJoin' }),
      )
      .meta({
        description:
          "D16: one entry per policy covering the employee and the dependent's relationship: the dependent's " +
          'own ADDITION, started at once (with `policy.endorsements` or `policy.all`), or why not; a repeated add retries them',
      }),
    ...outcome('Dependent added successfully'),
  })
  .meta({ id: 'AddDependentPayload' });

export const listDependentsPayload = z
  .object({ dependents: z.array(dependentSchema), ...outcome('Dependents fetched successfully') })
  .meta({ id: 'ListDependentsPayload' });
