import type { CensusRelationship, CensusRow, RowError } from './rows.js';
import type { PlanDependent, PlanEmployee, PlannedEndorsement, PlanPolicy } from './snapshot.js';
export type { PlanDependent } from './snapshot.js';
import { planEndorsement } from './refusal.js';
import { eligibilityBreaches, eligibilityRules, type ExistingDependent } from '../dependents/eligibility.js';
import { decideDependentEndorsement, type DependentCandidate } from '../dependents/endorsements.js';
import { coveredRelationships } from '../endorsements/endorsement.js';
import type { CensusEndorsementType, Relationship } from '../enums.js';

/** The census's relationships (HR's words) as the service's. */
export const RELATIONSHIP_OF: Record<Exclude<CensusRelationship, 'self'>, Relationship> = {
  spouse: 'SPOUSE',
  son: 'CHILD',
  daughter: 'CHILD',
  father: 'PARENT',
  mother: 'PARENT',
  'father-in-law': 'PARENT_IN_LAW',
  'mother-in-law': 'PARENT_IN_LAW',
};

type Person = { relationship: Relationship; name: string; date_of_birth: string };
/** A dependent is found again by relationship, name (case aside) and date of birth (data/dependents/dependents.ts). */
export const samePerson = (a: Person, b: Person) =>
  a.relationship === b.relationship &&
  a.date_of_birth === b.date_of_birth &&
  a.name.trim().toLowerCase() === b.name.trim().toLowerCase();

/** What the planner knows around one dependent row. */
export interface DependentRowContext {
  row: CensusRow;
  employee: PlanEmployee | undefined;
  policies: readonly PlanPolicy[];
  /** Dependents earlier rows of this census add to the same employee (the family rules count them). */
  planned: readonly Person[];
  /** The open endorsement on the employee's family on a policy, stored or planned by an earlier row. */
  openOn: (policyId: string) => string | null;
  today: string;
}

export interface DependentRowPlan {
  errors: RowError[];
  endorsement: PlannedEndorsement | null;
}

/**
 * Plans a dependent's row (D16): `add` upserts the dependent (checked with the eligibility rules of
 * the policies it would join) and, when the employee is covered on the routed policy today, its own
 * ADDITION for one life; `delete` ends a covered dependent's cover with a DELETION. An employee an
 * earlier row of the file creates is known but covered nowhere yet (their own ADDITION covers them
 * once the insurer approves it): as for any uncovered employee (usecases/dependents/dependents.ts), the
 * dependent is added alone, checked with the rules of the policies it would join, and joins with
 * the employee's ADDITION, whose approval enrols the covered family (data/endorsements/approval.ts).
 */
export function planDependentRow(ctx: DependentRowContext): DependentRowPlan {
  const errors = cellErrors(ctx);
  if (errors.length > 0) return { errors, endorsement: null };
  const { row } = ctx;
  const person: Person = {
    relationship: RELATIONSHIP_OF[row.relationship as Exclude<CensusRelationship, 'self'>],
    name: row.name!,
    date_of_birth: row.dateOfBirth!,
  };
  return row.action === 'add' ? planAddition(ctx, person) : planDeletion(ctx, person);
}

function cellErrors({ row, employee }: DependentRowContext): RowError[] {
  const errors: RowError[] = [];
  if (!employee) errors.push({ field: 'employee_code', reason: 'no employee has this code' });
  const needed =
    row.action === 'add'
      ? (['name', 'date_of_birth', 'gender'] as const)
      : (['name', 'date_of_birth'] as const);
  const key = { name: 'name', date_of_birth: 'dateOfBirth', gender: 'gender' } as const;
  for (const f of needed)
    if (row[key[f]] === undefined) errors.push({ field: f, reason: 'is required for a dependent' });
  if (row.action === 'modify') errors.push({ field: 'action', reason: "a dependent's row is add or delete" });
  return errors;
}

function planAddition(ctx: DependentRowContext, person: Person): DependentRowPlan {
  const { row, employee } = ctx;
  const found = employee!.dependents?.find((d) => samePerson(d, person));
  const others: ExistingDependent[] = [...(employee!.dependents ?? []), ...ctx.planned]
    .filter((d) => d !== found)
    .map((d) => ({ relationship: d.relationship, dateOfBirth: d.date_of_birth }));
  const fitting = ctx.policies.filter(
    (p) =>
      (!row.policyId || p.id === row.policyId) &&
      coveredRelationships(p.coverage_type).includes(person.relationship),
  );
  if (fitting.length === 0) {
    return {
      errors: [
        {
          field: row.policyId ? 'policy_id' : 'relationship',
          reason: 'no active policy of the client covers this relationship',
        },
      ],
      endorsement: null,
    };
  }
  const covering = fitting.filter((p) => employee!.cover.some((c) => c.policy_id === p.id));
  const errors = breachErrors(
    ctx,
    covering.length > 0 ? covering : fitting,
    covering.length > 0,
    person,
    others,
  );
  if (errors.length > 0 || covering.length === 0) return { errors, endorsement: null };
  if (covering.length > 1) {
    return {
      errors: [
        {
          field: 'policy_id',
          reason: 'is required because several active policies fit',
          reveals: 'coverage',
        },
      ],
      endorsement: null,
    };
  }
  const policy = covering[0]!;
  const cover = employee!.cover.find((c) => c.policy_id === policy.id)!;
  const dependent = { ...person, event_date: row.eventDate ?? null, cover: found?.cover ?? [] };
  return endorse(ctx, 'ENDORSEMENT_TYPE_ADDITION', candidate(ctx, policy, dependent, others), {
    start: row.effectiveDate,
    end: cover.end,
  });
}

function planDeletion(ctx: DependentRowContext, person: Person): DependentRowPlan {
  const { row, employee } = ctx;
  const found = employee!.dependents?.find((d) => samePerson(d, person));
  if (!found)
    return {
      errors: [
        {
          field: 'name',
          reason: 'no dependent of this employee has this relationship, name and date of birth',
          reveals: 'employees',
        },
      ],
      endorsement: null,
    };
  const covered = ctx.policies.filter(
    (p) => (!row.policyId || p.id === row.policyId) && found.cover.some((c) => c.policy_id === p.id),
  );
  if (covered.length !== 1) {
    const reason =
      covered.length === 0
        ? 'the dependent is not covered by an active policy of the client'
        : 'is required because several active policies cover the dependent';
    return { errors: [{ field: 'policy_id', reason, reveals: 'coverage' }], endorsement: null };
  }
  const policy = covered[0]!;
  const start = found.cover.find((c) => c.policy_id === policy.id)!.start;
  return endorse(ctx, 'ENDORSEMENT_TYPE_DELETION', candidate(ctx, policy, found, []), {
    start,
    end: row.effectiveDate,
  });
}

/** Every breach of the policies' eligibility rules as a row error naming the rule, on its field. */
function breachErrors(
  ctx: DependentRowContext,
  policies: readonly PlanPolicy[],
  employeeCovered: boolean,
  person: Person,
  existing: ExistingDependent[],
): RowError[] {
  const all = policies.flatMap((p) =>
    eligibilityBreaches({
      rules: eligibilityRules(p.eligibility),
      existing,
      dependent: {
        relationship: person.relationship,
        dateOfBirth: person.date_of_birth,
        eventDate: ctx.row.eventDate,
      },
      on: ctx.today,
      joiningCoveredEmployee: employeeCovered,
    }),
  );
  const unique = all.filter((b, i) => all.findIndex((o) => o.message === b.message) === i);
  return unique.map((b) => {
    const [field, reason] = b.message.split(/: (.*)/s) as [RowError['field'], string];
    // The family rules count the family's stored members (children, parents): a fact about them.
    const family = b.rule === 'MAX_CHILDREN' || b.rule === 'PARENTS_AND_PARENTS_IN_LAW';
    return { field, reason: `${b.rule}: ${reason}`, ...(family && { reveals: 'employees' as const }) };
  });
}

/** D16's own decision (dependent-endorsements.ts), for one life, as the row's planned endorsement. */
function endorse(
  ctx: DependentRowContext,
  type: CensusEndorsementType,
  c: DependentCandidate,
  dates: { start: string; end: string },
): DependentRowPlan {
  const planned = planEndorsement(type, () => ({
    dates,
    decision: decideDependentEndorsement(
      [c],
      {
        employeeId: ctx.employee!.id,
        dependentId: 'planned',
        policyId: c.id!,
        type,
        coverageStartDate: dates.start,
        coverageEndDate: dates.end,
      },
      ctx.today,
    ),
  }));
  return planned.error
    ? { errors: [planned.error], endorsement: null }
    : { errors: [], endorsement: planned.endorsement };
}

function candidate(
  ctx: DependentRowContext,
  p: PlanPolicy,
  d: Person & { event_date: string | null; cover: PlanDependent['cover'] },
  others: ExistingDependent[],
): DependentCandidate {
  const member = ctx.employee!.cover.find((c) => c.policy_id === p.id);
  const own = d.cover.find((c) => c.policy_id === p.id);
  return {
    id: p.id,
    policy_number: p.policy_number,
    status: 'POLICY_STATUS_ACTIVE',
    start_date: p.start_date,
    end_date: p.end_date,
    slabs: p.slabs,
    coverage_type: p.coverage_type,
    eligibility: p.eligibility,
    employee_active: member !== undefined,
    member_sum_insured: member?.sum_insured ?? own?.sum_insured ?? null,
    member_start: member?.start ?? null,
    member_end: member?.end ?? null,
    dependent_active: own !== undefined,
    dependent_end: own?.end ?? null,
    open_endorsement_id: ctx.openOn(p.id),
    relationship: d.relationship,
    date_of_birth: d.date_of_birth,
    event_date: d.event_date,
    others,
  };
}
