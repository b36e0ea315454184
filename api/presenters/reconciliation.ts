import { z } from 'zod';
import type { StatementDifferenceRow } from '../../data/reconciliation/cd-statements.js';
import type { DifferenceRow, ReconciliationRow } from '../../data/reconciliation/rosters.js';
import { STATEMENT_DIFFERENCE_KINDS } from '../../domain/reconciliation/cd-statement.js';
import {
  COMPARED_FIELDS,
  DIFFERENCE_KINDS,
  RECONCILIATION_KINDS,
  RECONCILIATION_STATUSES,
  ROSTER_SOURCES,
} from '../../domain/reconciliation/roster.js';
import { idOut, outcome, pagingOut } from '../schemas/responses.js';

const countsSchema = z
  .object(Object.fromEntries(DIFFERENCE_KINDS.map((k) => [k, z.number().int().min(0)])))
  .meta({ id: 'ReconciliationCounts', description: "A roster's number of differences of each kind" });

const statementCountsSchema = z
  .object(Object.fromEntries(STATEMENT_DIFFERENCE_KINDS.map((k) => [k, z.number().int().min(0)])))
  .meta({
    id: 'CdStatementReconciliationCounts',
    description: "A CD statement's number of differences of each kind",
  });

export const reconciliationSchema = z
  .object({
    id: idOut('rec_4k2m9x7q1w8e5r3t6y0u2i'),
    policy_id: idOut('pol_8c1d2e3f4a5b6c7d8e9f0a'),
    kind: z.enum(RECONCILIATION_KINDS).meta({
      description: "roster (the insurer's covered members) or cd_statement (its CD account statement)",
    }),
    source: z.enum(ROSTER_SOURCES).meta({ description: 'file (insurer inbox), command, or api (fetched)' }),
    file_name: z.string().nullable(),
    status: z.enum(RECONCILIATION_STATUSES).meta({
      description: 'staged (being compared), completed, or refused (the roster could not be read; see error)',
    }),
    error: z
      .string()
      .nullable()
      .meta({ description: 'Why a refused roster was refused (row and column, never values)' }),
    roster_rows: z
      .number()
      .int()
      .min(0)
      .meta({ description: "The rows read: a roster's members, or a CD statement's postings" }),
    counts: z.union([countsSchema, statementCountsSchema]).meta({ description: 'By kind of difference' }),
    created_at: z.string().meta({ format: 'date-time' }),
    completed_at: z.string().nullable().meta({ format: 'date-time' }),
  })
  .meta({
    id: 'Reconciliation',
    description:
      "One insurer roster checked against the policy's members, or one CD statement against its ledger.",
  });

export const differenceSchema = z
  .object({
    seq: z.number().int().min(1),
    kind: z.enum(DIFFERENCE_KINDS),
    explains: z.enum(DIFFERENCE_KINDS).nullable().meta({
      description: 'For explained_by_endorsement: the difference the open endorsement explains',
    }),
    member_id: z
      .string()
      .nullable()
      .meta({ description: 'Our member row (null when only the insurer covers the person)' }),
    employee_id: z.string().nullable(),
    employee_code: z.string(),
    relationship: z.string().meta({ example: 'SELF' }),
    roster_row: z.number().int().nullable().meta({ description: "The row of the insurer's roster" }),
    field: z.enum(COMPARED_FIELDS).nullable(),
    ours: z.string().nullable().meta({ description: 'Our value of the field' }),
    theirs: z.string().nullable().meta({ description: "The insurer's value of the field" }),
    endorsement_id: z.string().nullable().meta({ description: 'The open endorsement that explains it' }),
  })
  .meta({ id: 'ReconciliationDifference' });

export const statementDifferenceSchema = z
  .object({
    seq: z.number().int().min(1),
    kind: z.enum(STATEMENT_DIFFERENCE_KINDS),
    reference: z.string().nullable().meta({
      description:
        'The posting: a top-up reference or an endorsement id (null for the opening or closing balance)',
    }),
    statement_row: z.number().int().nullable().meta({ description: "The row of the insurer's statement" }),
    ours: z.string().nullable().meta({ description: 'Our amount in rupees', example: '5000.00' }),
    theirs: z.string().nullable().meta({ description: "The insurer's amount in rupees" }),
  })
  .meta({ id: 'CdStatementDifference' });

export type ReconciliationOut = z.infer<typeof reconciliationSchema>;
export type DifferenceOut = z.infer<typeof differenceSchema>;
export type StatementDifferenceOut = z.infer<typeof statementDifferenceSchema>;

export const listReconciliationsPayload = z
  .object({
    reconciliations: z.array(reconciliationSchema),
    ...pagingOut,
    ...outcome('Reconciliations fetched successfully'),
  })
  .meta({ id: 'ListReconciliationsPayload' });

export const getReconciliationPayload = z
  .object({
    reconciliation: reconciliationSchema,
    differences: z.array(z.union([differenceSchema, statementDifferenceSchema])).meta({
      description: "A roster's differences, or a CD statement's (as the reconciliation's kind says)",
    }),
    ...pagingOut,
    ...outcome('Reconciliation fetched successfully'),
  })
  .meta({ id: 'GetReconciliationPayload' });

export function presentReconciliation(r: ReconciliationRow): ReconciliationOut {
  return {
    id: r.id,
    policy_id: r.policy_id,
    kind: r.kind,
    source: r.source,
    file_name: r.file_name,
    status: r.status,
    error: r.error,
    roster_rows: r.roster_rows,
    counts: r.counts,
    created_at: r.created_at,
    completed_at: r.completed_at,
  };
}

export function presentDifference(d: DifferenceRow): DifferenceOut {
  return {
    seq: d.seq,
    kind: d.kind,
    explains: d.explains,
    member_id: d.member_id,
    employee_id: d.employee_id,
    employee_code: d.employee_code,
    relationship: d.relationship,
    roster_row: d.roster_row,
    field: d.field as DifferenceOut['field'],
    ours: d.ours,
    theirs: d.theirs,
    endorsement_id: d.endorsement_id,
  };
}

export function presentStatementDifference(d: StatementDifferenceRow): StatementDifferenceOut {
  return {
    seq: d.seq,
    kind: d.kind,
    reference: d.reference,
    statement_row: d.statement_row,
    ours: d.ours,
    theirs: d.theirs,
  };
}
