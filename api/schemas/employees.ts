import { z } from 'zod';
import type { NewEmployee } from '../../domain/employees.js';
import type { EmployeeStatus, Gender } from '../../domain/enums.js';
import { calendarDate, email, phone, requiredText, text } from './common.js';

export const GENDER_REQUEST = ['GENDER_MALE', 'GENDER_FEMALE', 'GENDER_OTHER'] as const;
export const CREATE_STATUS = ['EMPLOYEE_STATUS_ACTIVE', 'EMPLOYEE_STATUS_INACTIVE'] as const;
export const UPDATE_STATUS = [...CREATE_STATUS, 'EMPLOYEE_STATUS_INACTIVE_ONGOING_CLAIM'] as const;

const oneOf = <T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `must be one of ${values.join(', ')}` });

const employeeFields = {
  name: requiredText(200),
  email,
  phone_number: phone,
  date_of_birth: calendarDate,
  gender: oneOf(GENDER_REQUEST),
  designation: text(200),
  department: text(200),
  date_of_joining: calendarDate,
  address: text(1000),
  personal_email: email,
  personal_phone_number: phone,
  last_active_date: calendarDate,
};

/** Spec 4.6, strict (D6): an unknown field is a 400 naming it. */
export const createEmployeeBody = z.strictObject({
  employee_id: requiredText(64),
  name: employeeFields.name,
  email: employeeFields.email,
  phone_number: employeeFields.phone_number,
  date_of_birth: employeeFields.date_of_birth,
  gender: employeeFields.gender,
  designation: employeeFields.designation.optional(),
  department: employeeFields.department.optional(),
  date_of_joining: employeeFields.date_of_joining.optional(),
  address: employeeFields.address.optional(),
  personal_email: employeeFields.personal_email.optional(),
  personal_phone_number: employeeFields.personal_phone_number.optional(),
  status: oneOf(CREATE_STATUS),
  last_active_date: employeeFields.last_active_date.optional(),
});
export type CreateEmployeeBody = z.output<typeof createEmployeeBody>;

/** Spec 4.7: every field optional, only present ones change. */
export const updateEmployeeBody = z.strictObject({
  ...Object.fromEntries(Object.entries(employeeFields).map(([k, v]) => [k, v.optional()])),
  status: oneOf(UPDATE_STATUS).optional(),
} as { [K in keyof typeof employeeFields]: z.ZodOptional<(typeof employeeFields)[K]> } & {
  status: z.ZodOptional<ReturnType<typeof oneOf<typeof UPDATE_STATUS>>>;
});
export type UpdateEmployeeBody = z.output<typeof updateEmployeeBody>;

export const RELATIONSHIP_REQUEST = ['SPOUSE', 'CHILD', 'PARENT', 'PARENT_IN_LAW'] as const;

export const createDependentBody = z.strictObject({
  name: requiredText(200),
  relationship: oneOf(RELATIONSHIP_REQUEST),
  date_of_birth: calendarDate,
  gender: oneOf(GENDER_REQUEST),
});
export type CreateDependentBody = z.output<typeof createDependentBody>;

/** Request spellings to stored ones: `GENDER_MALE` -> `MALE`, `EMPLOYEE_STATUS_ACTIVE` -> `ACTIVE`. */
export const storedGender = (g: (typeof GENDER_REQUEST)[number]) => g.replace(/^GENDER_/, '') as Gender;
export const storedStatus = (s: (typeof UPDATE_STATUS)[number]) =>
  s.replace(/^EMPLOYEE_STATUS_/, '') as EmployeeStatus;

export function newEmployeeFromRequest(body: CreateEmployeeBody): NewEmployee {
  return {
    employeeCode: body.employee_id,
    name: body.name,
    email: body.email,
    phoneNumber: body.phone_number,
    dateOfBirth: body.date_of_birth,
    gender: storedGender(body.gender),
    status: storedStatus(body.status),
    designation: body.designation,
    department: body.department,
    dateOfJoining: body.date_of_joining,
    address: body.address,
    personalEmail: body.personal_email,
    personalPhoneNumber: body.personal_phone_number,
    lastActiveDate: body.last_active_date,
  };
}
