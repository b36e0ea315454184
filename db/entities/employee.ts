import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { EMPLOYEE_STATUSES, GENDERS, RELATIONSHIPS } from '../../domain/enums.js';
import { tenantFilter } from './tenant.js';

/** The user account behind an employee, keyed by official email, case-insensitively, per client (D6). */
export const UserSchema = defineEntity({
  name: 'User',
  tableName: 'users',
  filters: tenantFilter,
  properties: {
    id: p.string().primary(),
    clientId: p.string(),
    emailKey: p.string(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type User = InferEntity<typeof UserSchema>;

export const EmployeeSchema = defineEntity({
  name: 'Employee',
  tableName: 'employees',
  filters: tenantFilter,
  properties: {
    id: p.string().primary(),
    clientId: p.string(),
    userId: p.string(),
    /** The client's own employee identifier (the spec's `employee_id` on create). */
    employeeCode: p.string(),
    name: p.string(),
    email: p.string(),
    phoneNumber: p.string(),
    dateOfBirth: p.date(),
    gender: p.enum([...GENDERS]),
    designation: p.string().default(''),
    department: p.string().default(''),
    dateOfJoining: p.date().nullable(),
    dateOfLeaving: p.date().nullable(),
    address: p.text().default(''),
    personalEmail: p.string().default(''),
    personalPhoneNumber: p.string().default(''),
    isAdmin: p.boolean().default(false),
    status: p.enum([...EMPLOYEE_STATUSES]),
    lastActiveDate: p.date().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type Employee = InferEntity<typeof EmployeeSchema>;

export const DependentSchema = defineEntity({
  name: 'Dependent',
  tableName: 'dependents',
  filters: tenantFilter,
  properties: {
    id: p.string().primary(),
    clientId: p.string(),
    employeeId: p.string(),
    name: p.string(),
    relationship: p.enum([...RELATIONSHIPS]),
    dateOfBirth: p.date(),
    gender: p.enum([...GENDERS]),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type Dependent = InferEntity<typeof DependentSchema>;
