import { z } from 'zod';
import { isCalendarDate } from '../dates.js';
import { unsafeTextReason, type TextKind } from '../text.js';
import type { EmployeeChanges, NewDependent, NewEmployee } from '../employees.js';
import type { EmployeeStatus, Gender } from '../enums.js';

export const GENDER_REQUEST = ['GENDER_MALE', 'GENDER_FEMALE', 'GENDER_OTHER'] as const;
export const CREATE_STATUS = ['EMPLOYEE_STATUS_ACTIVE', 'EMPLOYEE_STATUS_INACTIVE'] as const;
export const UPDATE_STATUS = [...CREATE_STATUS, 'EMPLOYEE_STATUS_INACTIVE_ONGOING_CLAIM'] as const;
export const RELATIONSHIP_REQUEST = ['SPOUSE', 'CHILD', 'PARENT', 'PARENT_IN_LAW'] as const;

/** Every issue names its rule (D6); an absent required field says so instead of naming a type. */
const rule = (message: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : message),
});

/**
 * Free text, names and codes: bounded, and refused when they break domain/text.ts's rules for their
 * kind (controls, bidi formatting, invisible characters, lone surrogates; a formula lead for names
 * and codes).
 */
const text = (max: number, kind: TextKind = 'text') =>
  z
    .string(rule('must be a string'))
    .trim()
    .max(max, `must be at most ${max} characters`)
    .superRefine((value, ctx) => {
      const reason = unsafeTextReason(value, kind);
      if (reason) ctx.addIssue({ code: 'custom', message: reason });
    });
const nonEmptyText = (max: number, kind: TextKind = 'text') => text(max, kind).min(1, 'must not be empty');
/** A person's name (an employee's or a dependent's). */
const personName = nonEmptyText(200, 'name');
/** The client's own code for an employee (`employee_id` of spec 4.6, the census's Employee Code). */
const employeeCode = nonEmptyText(64, 'identifier');

const calendarDate = z
  .string(rule('must be a date string in YYYY-MM-DD form'))
  .refine(isCalendarDate, 'must be a real calendar date in YYYY-MM-DD form')
  .meta({ format: 'date' });

const email = z.email(rule('must be a valid email address')).max(254, 'must be at most 254 characters');

const phone = z
  .string(rule('must be a string'))
  .regex(/^\+?[0-9]{10,15}$/, 'must be 10 to 15 digits with an optional leading +');

const oneOf = <T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, rule(`must be one of ${values.join(', ')}`));

const OBJECT = { error: 'must be an object' };

export const employeeFields = {
  name: personName,
  employee_code: employeeCode,
  email,
  phone_number: phone,
  date_of_birth: calendarDate,
  gender: oneOf(GENDER_REQUEST),
  designation: text(200),
  department: text(200),
  date_of_joining: calendarDate,
  address: text(1000, 'multiline'),
  personal_email: email,
  personal_phone_number: phone,
  last_active_date: calendarDate,
};

/** Spec 4.6, strict (D6): an unknown field (`id`, `client_id`, `is_admin`, ...) is a 400 naming it. */
export const createEmployeeBody = z.strictObject(
  {
    employee_id: employeeFields.employee_code,
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
  },
  OBJECT,
);
export type CreateEmployeeBody = z.output<typeof createEmployeeBody>;

const leavingDate = calendarDate.optional().meta({
  description:
    'D16: with an inactive status, the day cover ends (default: the day of the change, D6); each policy ' +
    "covering the employee gets a DELETION ending on it, created or proposed per the client's exit mode",
});

/** D16: a leaving date comes with the inactive status it belongs to. */
function leavingNeedsInactive(
  body: { status?: string | undefined; date_of_leaving?: string | undefined },
  ctx: z.RefinementCtx,
): void {
  if (body.date_of_leaving === undefined) return;
  if (body.status === undefined || body.status === 'EMPLOYEE_STATUS_ACTIVE') {
    ctx.addIssue({
      code: 'custom',
      path: ['date_of_leaving'],
      message: 'requires an inactive status in the same request',
    });
  }
}

/** Spec 4.7: every field optional, only present ones change; status may also be INACTIVE_ONGOING_CLAIM. */
export const updateEmployeeBody = z
  .strictObject(
    {
      name: employeeFields.name.optional(),
      email: employeeFields.email.optional(),
      phone_number: employeeFields.phone_number.optional(),
      date_of_birth: employeeFields.date_of_birth.optional(),
      gender: employeeFields.gender.optional(),
      designation: employeeFields.designation.optional(),
      department: employeeFields.department.optional(),
      date_of_joining: employeeFields.date_of_joining.optional(),
      address: employeeFields.address.optional(),
      personal_email: employeeFields.personal_email.optional(),
      personal_phone_number: employeeFields.personal_phone_number.optional(),
      status: oneOf(UPDATE_STATUS).optional(),
      last_active_date: employeeFields.last_active_date.optional(),
      date_of_leaving: leavingDate,
    },
    OBJECT,
  )
  .superRefine(leavingNeedsInactive);
export type UpdateEmployeeBody = z.output<typeof updateEmployeeBody>;

/** Spec 4.8: 1..n items here; over 100 is a 413 the route answers, each item is checked on its own. */
export const bulkUpdateBody = z.strictObject(
  {
    employees: z
      .array(z.unknown(), rule('must be an array of employees'))
      .min(1, 'must have at least one item'),
  },
  OBJECT,
);
export const MAX_BULK_ITEMS = 100;

export const bulkUpdateItem = z
  .strictObject(
    {
      emp_id: nonEmptyText(64),
      last_active_date: calendarDate.optional(),
      status: oneOf(UPDATE_STATUS).optional(),
      date_of_leaving: leavingDate,
    },
    { error: 'must be an object' },
  )
  .superRefine(leavingNeedsInactive);

/** Query of Get Employee (4.5); the route answers a failure as MISSING_EMPLOYEE_ID. */
export const profileQuery = z.object({
  employee_id: z
    .string(rule('must be a single value'))
    .trim()
    .min(1, 'is required')
    .meta({ description: 'The service-assigned employee id (as Create employee answers it)' }),
});

/** The service-assigned employee id in a path; an id of any shape is looked up (unknown is 404). */
export const employeePathParams = z.object({
  employee_id: z
    .string()
    .meta({ description: 'The service-assigned employee id (as Create employee answers it)' }),
});

export const createDependentBody = z.strictObject(
  {
    name: personName,
    relationship: oneOf(RELATIONSHIP_REQUEST),
    date_of_birth: calendarDate,
    gender: oneOf(GENDER_REQUEST),
    event_date: calendarDate.optional().meta({
      description:
        'D16: the life event (marriage for a spouse; birth, the default, or adoption for a child) that lets a ' +
        "dependent join an employee already covered, within the policy's window (default 30 days)",
    }),
  },
  OBJECT,
);
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

/** Only the fields present in the request (spec 4.7). */
export function employeeChangesFromRequest(body: UpdateEmployeeBody): EmployeeChanges {
  const changes: EmployeeChanges = {
    name: body.name,
    email: body.email,
    phoneNumber: body.phone_number,
    dateOfBirth: body.date_of_birth,
    gender: body.gender && storedGender(body.gender),
    designation: body.designation,
    department: body.department,
    dateOfJoining: body.date_of_joining,
    address: body.address,
    personalEmail: body.personal_email,
    personalPhoneNumber: body.personal_phone_number,
    status: body.status && storedStatus(body.status),
    lastActiveDate: body.last_active_date,
    dateOfLeaving: body.date_of_leaving,
  };
  return Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
}

export function newDependentFromRequest(body: CreateDependentBody): NewDependent {
  return {
    name: body.name,
    relationship: body.relationship,
    dateOfBirth: body.date_of_birth,
    gender: storedGender(body.gender),
    eventDate: body.event_date,
  };
}
