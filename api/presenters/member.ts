import { z } from 'zod';
import type { MemberRow } from '../../data/members.js';
import { MEMBER_STATUSES, type Gender } from '../../domain/enums.js';
import { dateOut, idOut, moneyOut, outcome, pagingOut } from '../schemas/responses.js';

/** Gender as Get Employee answers it (D6): the documented `MALE`, `GENDER_FEMALE`, `GENDER_OTHER`. */
export const RESPONSE_GENDERS = ['MALE', 'GENDER_FEMALE', 'GENDER_OTHER'] as const;
export const GENDER_RESPONSE: Record<Gender, (typeof RESPONSE_GENDERS)[number]> = {
  MALE: 'MALE',
  FEMALE: 'GENDER_FEMALE',
  OTHER: 'GENDER_OTHER',
};

const moneyOrNull = (amount: string | null): number | null => (amount === null ? null : Number(amount));
/** Stored as '' when unset; the member view's nullable fields say "unset" with null. */
const textOrNull = (value: string): string | null => (value === '' ? null : value);

const memberCommon = {
  id: idOut('mem_3jv8w2r5kq'),
  client_id: z.string(),
  policy_id: z.string(),
  employee_id: z.string(),
  coverage_start_date: dateOut,
  coverage_end_date: dateOut,
  status: z.enum(MEMBER_STATUSES),
  employee_name: z.string(),
  employee_email: z.string(),
};

/** Spec 2.3: the employee's own row. */
export const employeeMemberSchema = z
  .object({
    ...memberCommon,
    dependent_id: z.null(),
    endorsement_id: z.string().nullable(),
    insurer_member_id: z.string().nullable(),
    premium_amount: moneyOut.nullable(),
    sum_insured: moneyOut.nullable(),
    remaining_sum_insured: moneyOut.nullable(),
    employee_dob: dateOut,
    employee_gender: z.enum(RESPONSE_GENDERS),
    employee_department: z.string().nullable(),
    employee_designation: z.string().nullable(),
  })
  .meta({ id: 'EmployeeMember', description: "A covered employee's own row (spec 2.3)." });

/** Spec 2.3: a dependent's row carries what the spec's sample dependent row carries. */
export const dependentMemberSchema = z.object({ ...memberCommon, dependent_id: z.string() }).meta({
  id: 'DependentMember',
  description: "A covered dependent's row; employee_name/employee_email are the employee's (spec 2.3).",
});

export const policyMemberSchema = z
  .union([employeeMemberSchema, dependentMemberSchema])
  .meta({ id: 'PolicyMember', description: 'One covered person: an employee or a dependent.' });
export type PolicyMember = z.infer<typeof policyMemberSchema>;

/**
 * One covered person. A dependent row carries what the spec's sample dependent row carries; its
 * employee_name/employee_email are those of the employee it is covered through.
 */
export function presentMember(row: MemberRow): PolicyMember {
  if (row.dependent_id !== null) {
    return {
      id: row.id,
      client_id: row.client_id,
      policy_id: row.policy_id,
      employee_id: row.employee_id,
      dependent_id: row.dependent_id,
      coverage_start_date: row.coverage_start_date,
      coverage_end_date: row.coverage_end_date,
      status: row.status,
      employee_name: row.employee_name,
      employee_email: row.employee_email,
    };
  }
  return {
    id: row.id,
    client_id: row.client_id,
    policy_id: row.policy_id,
    employee_id: row.employee_id,
    dependent_id: null,
    endorsement_id: row.endorsement_id,
    insurer_member_id: row.insurer_member_id,
    coverage_start_date: row.coverage_start_date,
    coverage_end_date: row.coverage_end_date,
    premium_amount: moneyOrNull(row.premium_amount),
    sum_insured: moneyOrNull(row.sum_insured),
    remaining_sum_insured: moneyOrNull(row.remaining_sum_insured),
    status: row.status,
    employee_name: row.employee_name,
    employee_email: row.employee_email,
    employee_dob: row.employee_dob,
    employee_gender: GENDER_RESPONSE[row.employee_gender],
    employee_department: textOrNull(row.employee_department),
    employee_designation: textOrNull(row.employee_designation),
  };
}

/** Spec 4.4. */
export const listMembersPayload = z
  .object({
    members: z.array(policyMemberSchema),
    ...pagingOut,
    ...outcome('Policy members fetched successfully'),
  })
  .meta({ id: 'ListMembersPayload' });
