import { z } from 'zod';
import { POLICY_STATUSES, type MemberStatus } from '../../domain/enums.js';
import { monthDays } from '../../domain/policy-year/premium-statement.js';
import { oneDirection, pageQueryFields } from '../paging.js';

/** Case-insensitive substring (D5); blank means no search. */
const search = z
  .string()
  .trim()
  .max(100, 'must be at most 100 characters')
  .transform((v) => v || undefined)
  .optional()
  .meta({ description: 'Case-insensitive substring (D5)' });

/** Matched case-insensitively, answered in the spelling the rows use. */
const statusFilter = <T extends readonly [string, ...string[]]>(values: T) =>
  z
    .string()
    .transform((v) => v.toUpperCase())
    .pipe(z.enum(values, { error: `must be one of ${values.join(', ')}` }))
    .optional()
    .meta({
      type: 'string',
      enum: [...values],
      description: `Only rows with this status (matched case-insensitively)`,
    });

/** Spec 4.2. */
export const listPoliciesQuery = z
  .object({
    client_id: z
      .string()
      .trim()
      .min(1, 'is required')
      .max(64, 'must be at most 64 characters')
      .meta({ description: "The token's client (spec 4.2); another client's id is 403" }),
    status: statusFilter(POLICY_STATUSES),
    search,
    ...pageQueryFields,
  })
  .superRefine(oneDirection);
export type ListPoliciesQuery = z.output<typeof listPoliciesQuery>;

/** Spec 4.4: the filter is ACTIVE|INACTIVE|SUSPENDED, rows say active|inactive|suspended. */
const STORED_MEMBER_STATUS = {
  ACTIVE: 'active',
  INACTIVE: 'inactive',
  SUSPENDED: 'suspended',
} as const satisfies Record<string, MemberStatus>;
export const MEMBER_STATUS_FILTER = ['ACTIVE', 'INACTIVE', 'SUSPENDED'] as const;

export const listMembersQuery = z
  .object({
    employee_id: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(64, 'must be at most 64 characters')
      .optional()
      .meta({ description: "Only this employee's rows (the employee and their dependents)" }),
    status: statusFilter(MEMBER_STATUS_FILTER).transform((s) => (s ? STORED_MEMBER_STATUS[s] : undefined)),
    search,
    ...pageQueryFields,
  })
  .superRefine(oneDirection);
export type ListMembersQuery = z.output<typeof listMembersQuery>;

/** The CD ledger's paging (D5): posting order, oldest first. */
export const cdLedgerQuery = z.object({ ...pageQueryFields }).superRefine(oneDirection);
export type CdLedgerQuery = z.output<typeof cdLedgerQuery>;

/** Any string; an id that cannot be a policy is answered like an unknown one (404). */
export const policyParams = z.object({
  policy_id: z.string().meta({ description: 'The policy id, as List policies answers it' }),
});

export type PolicyParams = z.output<typeof policyParams>;

/** A policy and a calendar month (`2026-11`), its days counted in India (D13). */
export const statementParams = policyParams.extend({
  month: z
    .string()
    .refine((m) => monthDays(m) !== undefined, 'must be a calendar month as YYYY-MM')
    .meta({ description: 'The month, as YYYY-MM (days in India, D13)', example: '2026-11' }),
});
export type StatementParams = z.output<typeof statementParams>;
