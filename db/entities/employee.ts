import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { EMPLOYEE_STATUSES, GENDERS, RELATIONSHIPS } from '../../domain/enums.js';
import { clientRef } from './client.js';
import { createdAt, ref, text, textEnum, updatedAt } from './columns.js';
import { tenantFilter } from './tenant.js';

/** The user account behind an employee, keyed by official email, case-insensitively, per client (D6). */
export const UserSchema = defineEntity({
  name: 'User',
  tableName: 'users',
  filters: tenantFilter,
  uniques: [{ name: 'users_client_id_email_key_key', properties: ['clientId', 'emailKey'] }],
  properties: {
    id: text().primary(),
    clientId: clientRef(),
    emailKey: text(),
    createdAt: createdAt(),
  },
});
export type User = InferEntity<typeof UserSchema>;

export const EmployeeSchema = defineEntity({
  name: 'Employee',
  tableName: 'employees',
  filters: tenantFilter,
  uniques: [
    { name: 'employees_client_id_employee_code_key', properties: ['clientId', 'employeeCode'] },
    { name: 'employees_client_id_user_id_key', properties: ['clientId', 'userId'] },
  ],
  indexes: [
    // List Members' search (D5): case-insensitive substring of name or email, through trigrams.
    {
      name: 'employees_name_trgm',
      expression: 'create index employees_name_trgm on employees using gin (name gin_trgm_ops)',
    },
    {
      name: 'employees_email_trgm',
      expression: 'create index employees_email_trgm on employees using gin (email gin_trgm_ops)',
    },
  ],
  properties: {
    id: text().primary(),
    clientId: clientRef(),
    userId: ref(UserSchema, 'user_id'),
    /** The client's own employee identifier (the spec's `employee_id` on create). */
    employeeCode: text(),
    name: text(),
    email: text(),
    phoneNumber: text(),
    dateOfBirth: p.date(),
    gender: textEnum(GENDERS),
    designation: text().default(''),
    department: text().default(''),
    dateOfJoining: p.date().nullable(),
    dateOfLeaving: p.date().nullable(),
    address: text().default(''),
    personalEmail: text().default(''),
    personalPhoneNumber: text().default(''),
    isAdmin: p.boolean().default(false),
    status: textEnum(EMPLOYEE_STATUSES),
    lastActiveDate: p.date().nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});
export type Employee = InferEntity<typeof EmployeeSchema>;

export const DependentSchema = defineEntity({
  name: 'Dependent',
  tableName: 'dependents',
  filters: tenantFilter,
  indexes: [
    { name: 'dependents_employee', properties: ['clientId', 'employeeId'] },
    // One person per employee: a repeated or racing add finds the existing row.
    {
      name: 'dependents_person',
      expression:
        'create unique index dependents_person on dependents ' +
        '(client_id, employee_id, relationship, lower(name), date_of_birth)',
    },
  ],
  properties: {
    id: text().primary(),
    clientId: clientRef(),
    employeeId: ref(EmployeeSchema, 'employee_id'),
    name: text(),
    relationship: textEnum(RELATIONSHIPS),
    dateOfBirth: p.date(),
    gender: textEnum(GENDERS),
    /** D16: the life event (marriage, birth, adoption) that lets the dependent join a covered employee. */
    eventDate: p.date().nullable(),
    createdAt: createdAt(),
  },
});
export type Dependent = InferEntity<typeof DependentSchema>;
