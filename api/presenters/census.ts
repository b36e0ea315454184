import { z } from 'zod';
import type { BatchRowPageRow, BatchSummary } from '../../data/census/batches.js';
import { CENSUS_BATCH_STATUSES, CENSUS_ROW_OUTCOMES } from '../../domain/census/batch.js';
import type { PlanTotals, RowPlan } from '../../domain/census/plan.js';
import { CENSUS_FIELDS } from '../../domain/census/rows.js';
import { visibleRowPlan, visibleTotals, type CensusView } from '../../domain/census/visibility.js';
import { CENSUS_ENDORSEMENT_TYPES, EXIT_MODES } from '../../domain/enums.js';
import type { PlannedEndorsement } from '../../domain/census/plan.js';
import { dateOut, idOut, moneyOut, outcome, pagingOut } from '../schemas/responses.js';

const money = (s: string) => Number(s);

const rowErrorSchema = z
  .object({
    field: z
      .enum([...CENSUS_FIELDS, 'row'])
      .meta({ description: 'The column (or `row` for the row as a whole)' }),
    reason: z.string().meta({ example: 'is required for a new employee' }),
  })
  .meta({ id: 'CensusRowError' });

const plannedEndorsementSchema = z
  .object({
    type: z.enum(CENSUS_ENDORSEMENT_TYPES),
    policy_id: idOut('pol_8c1d2e3f4a5b6c7d8e9f0a'),
    coverage_start_date: dateOut,
    coverage_end_date: dateOut,
    sum_insured: moneyOut,
    premium_impact: moneyOut.meta({ description: 'INR; ADDITION positive, DELETION a negative refund (D7)' }),
    pro_rata_days: z.number().int().nullable().meta({
      description:
        'The days priced: covered days of an ADDITION or MODIFICATION, unused days after a DELETION (null on batches stored before it)',
    }),
    cd: z
      .object({
        hold: moneyOut.meta({ description: 'What it would hold at review (0 for a refund)' }),
        available_after: moneyOut.meta({
          description: "The policy's available CD balance after this hold, the census's earlier rows counted",
        }),
        waits_for_funds: z.boolean().meta({ description: 'Its cover would wait for a top-up' }),
      })
      .nullable()
      .meta({
        description:
          'A forecast of the CD account at its review; null for a token without a scope that reads the CD account (policy.get, policy.all)',
      }),
  })
  .meta({ id: 'CensusPlannedEndorsement' });

const exitSchema = z
  .object({
    date_of_leaving: dateOut,
    mode: z.enum(EXIT_MODES).meta({
      description:
        "The client's exit mode: automatic creates the DELETIONs at commit; proposed lists them on the employee (`pending_exits`) and creates none",
    }),
    deletions: z.array(plannedEndorsementSchema).meta({
      description: 'One DELETION per ACTIVE policy whose cover of the employee outlasts the leaving date',
    }),
  })
  .meta({
    id: 'CensusExit',
    description: 'A delete row without a policy: the employee leaves (INACTIVE with date_of_leaving)',
  });

export const rowPlanSchema = z
  .object({
    row: z.number().int().min(1).meta({ description: 'The data row (1 is the first row after the header)' }),
    status: z.enum(['ok', 'error']),
    errors: z.array(rowErrorSchema).meta({ description: 'Every problem of the row (empty when ok)' }),
    employee_code: z.string(),
    creates_employee: z.boolean(),
    adds_dependent: z.boolean(),
    updates_employee: z.boolean().meta({
      description:
        "An existing employee's details (name, email, phone, date of birth, gender) the row changes",
    }),
    employee_row: z.number().int().nullable().meta({
      description: 'The earlier row of this census that creates the employee; this row is applied after it',
    }),
    endorsement: plannedEndorsementSchema.nullable().meta({
      description:
        "The row's endorsement; null for an exit, or a dependent of an uncovered employee (it joins with the employee's ADDITION)",
    }),
    exit: exitSchema.nullable(),
  })
  .meta({ id: 'CensusRowPlan', description: 'What committing this row would do, or why it cannot' });

const totalsSchema = z
  .object({
    rows: z.number().int(),
    ok: z.number().int(),
    errors: z.number().int(),
    employees_created: z.number().int(),
    employees_updated: z.number().int(),
    exits: z.number().int(),
    endorsements: z.object(Object.fromEntries(CENSUS_ENDORSEMENT_TYPES.map((t) => [t, z.number().int()]))),
    premium: moneyOut.meta({ description: 'Net premium impact of the ok rows (INR)' }),
    cd: z
      .array(
        z.object({
          policy_id: z.string(),
          available: moneyOut.meta({ description: "The policy's available CD balance (balance less holds)" }),
          debit: moneyOut,
          credit: moneyOut,
          shortfall: moneyOut.meta({ description: 'Debits past the available balance (0 when covered)' }),
          available_after: moneyOut.nullable().meta({
            description: 'The available balance after the holds of the endorsements that would not wait',
          }),
          waiting: z.number().int().nullable().meta({
            description: "How many of the census's endorsements would wait for funds on the policy",
          }),
        }),
      )
      .nullable()
      .meta({
        description:
          "Each policy's CD impact; null for a token without a scope that reads the CD account (policy.get, policy.all)",
      }),
  })
  .meta({ id: 'CensusTotals' });

export const dryRunPayload = z
  .object({
    dry_run: z.literal(true),
    rows: z.array(rowPlanSchema),
    totals: totalsSchema,
    ...outcome('Census checked; nothing was written'),
  })
  .meta({ id: 'CensusDryRunPayload' });

export const commitPayload = z
  .object({
    batch_id: idOut('bat_3n8v5c2x7z1q9w4e6r0t5y'),
    ...outcome('Census accepted; its rows are being applied'),
  })
  .meta({ id: 'CensusCommitPayload' });

const countsSchema = z.object({
  pending: z.number().int(),
  applied: z.number().int(),
  failed: z.number().int(),
  invalid: z.number().int(),
});

const batchRowSchema = z
  .object({
    row: z.number().int(),
    outcome: z.enum(['PENDING', ...CENSUS_ROW_OUTCOMES]),
    employee_id: z.string().nullable(),
    endorsement_id: z.string().nullable().meta({ description: "The row's (first) endorsement" }),
    endorsement_ids: z
      .array(z.string())
      .meta({ description: 'Every endorsement the row made (an exit: one per policy)' }),
    reason: z.string().nullable().meta({ description: 'Why a row is INVALID or FAILED' }),
    plan: rowPlanSchema,
  })
  .meta({ id: 'CensusBatchRow' });

export const batchPayload = z
  .object({
    batch: z.object({
      batch_id: z.string(),
      status: z.enum(CENSUS_BATCH_STATUSES),
      rows: z.number().int(),
      counts: countsSchema,
      totals: totalsSchema,
      created_at: z.string().meta({ format: 'date-time' }),
      completed_at: z.string().nullable().meta({ format: 'date-time' }),
    }),
    rows: z.array(batchRowSchema),
    ...pagingOut,
    ...outcome('Batch fetched successfully'),
  })
  .meta({ id: 'CensusBatchPayload' });

const presentPlanned = (e: PlannedEndorsement) => ({
  ...e,
  sum_insured: money(e.sum_insured),
  premium_impact: money(e.premium_impact),
  pro_rata_days: e.pro_rata_days ?? null,
  cd: e.cd
    ? {
        hold: money(e.cd.hold),
        available_after: money(e.cd.available_after),
        waits_for_funds: e.cd.waits_for_funds,
      }
    : null,
});

/** A row as `view` may see it (domain/census/visibility.ts). */
export function presentRowPlan(plan: RowPlan, view: CensusView): z.infer<typeof rowPlanSchema> {
  const p = visibleRowPlan(plan, view);
  return {
    ...p,
    errors: p.errors.map((e) => ({ field: e.field, reason: e.reason })),
    // Rows stored before these fields had none of them.
    updates_employee: p.updates_employee ?? false,
    employee_row: p.employee_row ?? null,
    endorsement: p.endorsement && presentPlanned(p.endorsement),
    exit: p.exit ? { ...p.exit, deletions: p.exit.deletions.map(presentPlanned) } : null,
  };
}

/** Totals as `view` may see them (domain/census/visibility.ts). */
export function presentTotals(totals: PlanTotals, view: CensusView): z.infer<typeof totalsSchema> {
  const t = visibleTotals(totals, view);
  return {
    ...t,
    employees_updated: t.employees_updated ?? 0,
    exits: t.exits ?? 0,
    premium: money(t.premium),
    cd:
      t.cd?.map((c) => ({
        policy_id: c.policy_id,
        available: money(c.available),
        debit: money(c.debit),
        credit: money(c.credit),
        shortfall: money(c.shortfall),
        available_after: c.available_after === undefined ? null : money(c.available_after),
        waiting: c.waiting ?? null,
      })) ?? null,
  };
}

export function presentBatch(b: BatchSummary, view: CensusView) {
  return {
    batch_id: b.id,
    status: b.status,
    rows: b.row_count,
    counts: b.counts,
    totals: presentTotals(b.totals as unknown as PlanTotals, view),
    created_at: b.created_at,
    completed_at: b.completed_at,
  };
}

export const presentBatchRow = (r: BatchRowPageRow, view: CensusView): z.infer<typeof batchRowSchema> => ({
  row: r.row_number,
  outcome: r.outcome ?? 'PENDING',
  employee_id: r.employee_id,
  endorsement_id: r.endorsement_id,
  endorsement_ids: r.endorsement_ids,
  reason: r.reason,
  plan: presentRowPlan(r.plan, view),
});
