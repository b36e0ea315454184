import { CENSUS_FIELDS, type CensusRecord, type CensusRow, type RowError } from './rows.js';
import { planDependentRow, RELATIONSHIP_OF } from './dependents.js';
import { changesDetails, type CensusExit } from './employee.js';
import type {
  CensusSnapshot,
  PlanDependent,
  PlanEmployee,
  PlannedEndorsement,
  PlanPolicy,
} from './snapshot.js';
import { planEndorsement } from './refusal.js';
import { emailKey } from '../employees.js';
import {
  choosePolicy,
  decideEndorsement,
  EndorsementRefused,
  type CandidatePolicy,
  type EndorsementRequest,
} from '../endorsements/endorsement.js';
import type { CensusEndorsementType } from '../enums.js';
import { formatPaise, paiseText, toPaise } from '../premium.js';
import { forecastHold } from '../cd-account/account.js';

export interface RowPlan {
  row: number;
  status: 'ok' | 'error';
  errors: RowError[];
  employee_code: string;
  creates_employee: boolean;
  adds_dependent: boolean;
  /** A self row restating an existing employee's details differently: they are updated. */
  updates_employee: boolean;
  /** The earlier row of this census that creates the employee: this row is applied after it. */
  employee_row: number | null;
  /** The row's endorsement; null for an exit (see `exit`) or a dependent joining with the employee. */
  endorsement: PlannedEndorsement | null;
  /** A `delete` self row without a policy: the employee's exit, with a DELETION per covering policy. */
  exit: CensusExit | null;
}

export interface PolicyCdImpact {
  policy_id: string;
  available: string;
  debit: string;
  credit: string;
  shortfall: string;
  /** The available balance after the holds of the endorsements that would not wait (absent: stored before). */
  available_after?: string;
  /** How many of the census's endorsements would wait for funds on the policy. */
  waiting?: number;
}

export interface PlanTotals {
  rows: number;
  ok: number;
  errors: number;
  employees_created: number;
  employees_updated: number;
  exits: number;
  endorsements: Record<CensusEndorsementType, number>;
  premium: string;
  cd: PolicyCdImpact[];
}

const TYPES: Record<CensusRow['action'], CensusEndorsementType> = {
  add: 'ENDORSEMENT_TYPE_ADDITION',
  delete: 'ENDORSEMENT_TYPE_DELETION',
  modify: 'ENDORSEMENT_TYPE_MODIFICATION',
};

const COLUMN_ORDER = new Map<string, number>([...CENSUS_FIELDS, 'row'].map((f, i) => [f, i]));

/** Errors in column order (then the row's own), so the same row always reads the same. */
const inColumnOrder = (errors: readonly RowError[]): RowError[] =>
  [...errors].sort((a, b) => COLUMN_ORDER.get(a.field)! - COLUMN_ORDER.get(b.field)!);

/** A row's plan before what it does: the fields every plan has, in the answer's order. */
const rowPlan = (
  row: number,
  employeeCode: string,
  status: RowPlan['status'],
  errors: RowError[],
): RowPlan => ({
  row,
  status,
  errors,
  employee_code: employeeCode,
  creates_employee: false,
  adds_dependent: false,
  updates_employee: false,
  employee_row: null,
  endorsement: null,
  exit: null,
});

/** An accepted row's plan: what it does, set on a fresh plan (one object a row, not copied). */
const okPlan = (row: CensusRow, does: Partial<RowPlan>): RowPlan =>
  Object.assign(rowPlan(row.row, row.employeeCode, 'ok', []), does);

/** A row that failed its cells' rules, in plan form (so a report lists every row). */
export const invalidRowPlan = (row: number, employeeCode: string, errors: RowError[]): RowPlan =>
  rowPlan(row, employeeCode, 'error', inColumnOrder(errors));

const NEW_EMPLOYEE_FIELDS = [
  ['name', 'name'],
  ['email', 'email'],
  ['phone', 'phone'],
  ['dateOfBirth', 'date_of_birth'],
  ['gender', 'gender'],
] as const;

/**
 * Plans a census against what exists (pure: the caller reads the snapshot). Each row goes through
 * D7's own checks and premium (decideEndorsement, routing and slabs as for a single create), in
 * file order, and what earlier rows would do counts for later ones: a second row for the same
 * employee and policy meets the first's open endorsement, as it would when applied.
 */
export type { CensusSnapshot, PlanEmployee, PlannedCd, PlannedEndorsement, PlanPolicy } from './snapshot.js';

/**
 * The code a row whose cells failed is looked up by, to tell whether it also lacks a new employee's
 * details (CensusPlanner.missingForNew): a self row's `add`. The stored employee must be read for it.
 */
export function codeAskedForNew(r: CensusRecord): string | undefined {
  const dependent = r.relationship !== undefined && r.relationship.toLowerCase() !== 'self';
  return r.employee_code && !dependent && r.action?.toLowerCase() === 'add' ? r.employee_code : undefined;
}

export class CensusPlanner {
  private readonly byCode = new Map<string, PlanEmployee>();
  private readonly byEmail = new Map<string, string>();
  /** Rows planned so far: `${code}|${policy}` -> the row that opens an endorsement there. */
  private readonly opened = new Map<string, number>();
  /** Codes a planned row creates, with that row. */
  private readonly created = new Map<string, number>();
  /** Dependents planned rows add, by employee code (the family rules count them). */
  private readonly dependents = new Map<
    string,
    { relationship: PlanDependent['relationship']; name: string; date_of_birth: string }[]
  >();

  /** `today`: the day the eligibility rules are checked on (Asia/Kolkata). */
  constructor(
    private readonly snapshot: CensusSnapshot,
    private readonly today: string,
  ) {
    this.know(snapshot.employees);
  }

  /**
   * Stored employees read after the planner was made (a census's later reads of the names it gives):
   * the rows planned after this see them. Each must be read before the first row naming it (by code,
   * by e-mail, or a failed row's code: codeAskedForNew) is planned, and given once.
   */
  know(employees: readonly PlanEmployee[]): void {
    for (const e of employees) {
      this.byCode.set(e.employee_code, e);
      this.byEmail.set(e.email_key, e.employee_code);
    }
  }

  plan(row: CensusRow): RowPlan {
    const existing = this.byCode.get(row.employeeCode);
    if (row.relationship !== 'self') return this.planDependent(row, existing);
    if (existing && row.action === 'delete' && !row.policyId) return this.planExit(row, existing);
    const errors: RowError[] = [];
    const creates = !existing && !this.created.has(row.employeeCode);
    if (creates) errors.push(...this.newEmployeeErrors(row));
    if (!existing && row.action !== 'add')
      errors.push({ field: 'employee_code', reason: 'no employee has this code' });
    const updates = changesDetails(row, existing?.details);
    if (updates) errors.push(...this.emailErrors(row));
    const endorsement = errors.length === 0 ? this.endorse(row, existing, errors) : null;
    if (errors.length > 0) return invalidRowPlan(row.row, row.employeeCode, errors);
    if (creates) this.created.set(row.employeeCode, row.row);
    if (creates || updates) this.byEmail.set(emailKey(row.email ?? existing!.email_key), row.employeeCode);
    this.opened.set(`${row.employeeCode}|${endorsement!.policy_id}`, row.row);
    return okPlan(row, {
      creates_employee: creates,
      updates_employee: updates,
      employee_row: creates ? null : (this.created.get(row.employeeCode) ?? null),
      endorsement,
    });
  }

  /**
   * A `delete` self row without a policy: the employee's exit (usecases/endorsements/exits.ts), leaving on the
   * effective date, with a DELETION ending then on every ACTIVE policy whose own cover of theirs
   * outlasts it (each through D7's checks, as a one-policy delete row). An employee covered nowhere
   * is an error, as a one-policy delete row is: the census changes cover, not only statuses.
   */
  private planExit(row: CensusRow, employee: PlanEmployee): RowPlan {
    const errors: RowError[] = [];
    const ending = this.snapshot.policies.filter((p) =>
      employee.cover.some((c) => c.policy_id === p.id && c.end > row.effectiveDate),
    );
    if (ending.length === 0)
      errors.push({
        field: 'policy_id',
        reason: 'the employee is not covered by an active policy of the client',
        reveals: 'coverage',
      });
    const deletions = ending.flatMap((p) => {
      const planned = this.endorse({ ...row, policyId: p.id }, employee, errors);
      return planned ? [planned] : [];
    });
    if (errors.length > 0) return invalidRowPlan(row.row, row.employeeCode, errors);
    const mode = this.snapshot.exit_mode ?? 'automatic';
    if (mode === 'automatic')
      for (const d of deletions) this.opened.set(`${row.employeeCode}|${d.policy_id}`, row.row);
    return okPlan(row, { exit: { date_of_leaving: row.effectiveDate, mode, deletions } });
  }

  /** A changed e-mail that another employee (stored or created by an earlier row) holds. */
  private emailErrors(row: CensusRow): RowError[] {
    const holder = row.email ? this.byEmail.get(emailKey(row.email)) : undefined;
    return holder !== undefined && holder !== row.employeeCode
      ? [
          {
            field: 'email',
            reason: 'is already the official e-mail of another employee',
            reveals: 'employees',
          },
        ]
      : [];
  }

  /** A dependent's row (census-dependents.ts); what it plans counts for later rows as an employee's does. */
  private planDependent(row: CensusRow, stored: PlanEmployee | undefined): RowPlan {
    const code = row.employeeCode;
    const planned = this.dependents.get(code) ?? [];
    const employeeRow = stored ? null : (this.created.get(code) ?? null);
    // An employee an earlier row creates: known, covered nowhere yet, without stored dependents.
    const employee: PlanEmployee | undefined =
      stored ??
      (employeeRow === null
        ? undefined
        : { id: 'new', employee_code: code, email_key: '', cover: [], open: [], dependents: [] });
    const { errors, endorsement } = planDependentRow({
      row,
      employee,
      policies: this.snapshot.policies,
      planned,
      openOn: (policyId) =>
        employee?.open.find((o) => o.policy_id === policyId)?.endorsement_id ??
        (this.opened.has(`${code}|${policyId}`)
          ? `planned by row ${this.opened.get(`${code}|${policyId}`)} of this census`
          : null),
      today: this.today,
    });
    if (errors.length > 0) return invalidRowPlan(row.row, code, errors);
    if (row.action === 'add') {
      const relationship = RELATIONSHIP_OF[row.relationship as keyof typeof RELATIONSHIP_OF];
      this.dependents.set(code, [
        ...planned,
        { relationship, name: row.name!, date_of_birth: row.dateOfBirth! },
      ]);
    }
    if (endorsement) this.opened.set(`${code}|${endorsement.policy_id}`, row.row);
    return okPlan(row, { adds_dependent: row.action === 'add', employee_row: employeeRow, endorsement });
  }

  /**
   * For a row whose cells failed their rules: the details a new employee would also lack, so the
   * report names every problem of the row at once.
   */
  missingForNew(r: CensusRecord): RowError[] {
    const code = codeAskedForNew(r);
    if (code === undefined || this.byCode.has(code) || this.created.has(code)) return [];
    return (['name', 'email', 'phone', 'date_of_birth', 'gender'] as const)
      .filter((f) => r[f] === undefined)
      .map((field) => ({ field, reason: 'is required for a new employee' }));
  }

  private newEmployeeErrors(row: CensusRow): RowError[] {
    if (row.action !== 'add') return [];
    const errors: RowError[] = NEW_EMPLOYEE_FIELDS.filter(([k]) => row[k] === undefined).map(([, field]) => ({
      field,
      reason: 'is required for a new employee',
    }));
    return [...errors, ...this.emailErrors(row)];
  }

  /** D7's decision for the row's endorsement, or its refusal pushed onto errors. */
  private endorse(
    row: CensusRow,
    employee: PlanEmployee | undefined,
    errors: RowError[],
  ): PlannedEndorsement | null {
    const type = TYPES[row.action];
    const candidates = this.candidates(row, employee);
    const planned = planEndorsement(type, () => {
      if (candidates.length === 0) throw new EndorsementRefused('POLICY_NOT_FOUND');
      const probe: EndorsementRequest = {
        employeeId: employee?.id ?? 'new',
        type,
        coverageStartDate: row.effectiveDate,
        coverageEndDate: row.effectiveDate,
        ...(row.policyId && { policyId: row.policyId }),
      };
      const policy = choosePolicy(candidates, probe);
      const req = this.request(row, type, policy, probe.employeeId);
      return {
        decision: decideEndorsement([policy], req),
        dates: { start: req.coverageStartDate, end: req.coverageEndDate },
      };
    });
    if (planned.error) errors.push(planned.error);
    return planned.endorsement;
  }

  /** The dates of the row's endorsement: from the effective date to the end of cover (or policy). */
  private request(
    row: CensusRow,
    type: CensusEndorsementType,
    p: CandidatePolicy,
    employeeId: string,
  ): EndorsementRequest {
    const deletion = type === 'ENDORSEMENT_TYPE_DELETION';
    const req: EndorsementRequest = {
      employeeId,
      policyId: p.id,
      type,
      coverageStartDate: deletion ? (p.member_start ?? p.start_date) : row.effectiveDate,
      coverageEndDate: deletion ? row.effectiveDate : (p.member_end ?? p.end_date),
    };
    if (row.sumInsured) req.sumInsured = row.sumInsured;
    return req;
  }

  /** D7's candidate rows for this employee (none covered yet for a new one), with earlier rows' opens. */
  private candidates(row: CensusRow, employee: PlanEmployee | undefined): CandidatePolicy[] {
    const policies = this.snapshot.policies.filter((p) => !row.policyId || p.id === row.policyId);
    return policies.map((p) => {
      const cover = employee?.cover.find((c) => c.policy_id === p.id);
      const openRow = this.opened.get(`${row.employeeCode}|${p.id}`);
      const open =
        employee?.open.find((o) => o.policy_id === p.id)?.endorsement_id ??
        (openRow === undefined ? null : `planned by row ${openRow} of this census`);
      return {
        id: p.id,
        policy_number: p.policy_number,
        status: 'POLICY_STATUS_ACTIVE',
        start_date: p.start_date,
        end_date: p.end_date,
        slabs: p.slabs,
        default_sum_insured: p.default_sum_insured,
        employee_active: cover !== undefined,
        open_endorsement_id: open,
        member_sum_insured: cover?.sum_insured ?? null,
        member_start: cover?.start ?? null,
        member_end: cover?.end ?? null,
      };
    });
  }
}

/** The endorsements a row's commit creates: its own, or an automatic exit's DELETIONs. */
export const createdEndorsements = (p: RowPlan): PlannedEndorsement[] =>
  p.endorsement ? [p.endorsement] : p.exit?.mode === 'automatic' ? p.exit.deletions : [];

/**
 * The CD forecast of every endorsement the census would create, in file order as the batch applies
 * them: each one's hold is placed against what the rows before it left available, under the
 * review's rule (forecastHold: a policy whose queue waits, or whose balance falls short, makes it
 * wait too). One row at a time (`row`), so a census can be forecast as it is planned.
 */
export class CensusCdForecast {
  private readonly account: Map<string, { available: bigint; waiting: boolean }>;

  constructor(policies: readonly PlanPolicy[]) {
    this.account = new Map(
      policies.map((p) => [p.id, { available: toPaise(p.cd_available), waiting: p.cd_waiting ?? false }]),
    );
  }

  /**
   * The next row's plan in file order, each endorsement it creates given its `cd` in place: a plan is
   * one object a row, fresh from the planner (CensusPlanner.plan), so a census's ten thousand are not
   * copied to be forecast.
   */
  row(p: RowPlan): RowPlan {
    if (p.status === 'ok') for (const e of createdEndorsements(p)) this.forecast(e);
    return p;
  }

  private forecast(e: PlannedEndorsement): void {
    const state = this.account.get(e.policy_id) ?? { available: 0n, waiting: false };
    const f = forecastHold(state.available, state.waiting, e.premium_impact);
    this.account.set(e.policy_id, { available: f.availableAfter, waiting: state.waiting || f.waitsForFunds });
    e.cd = {
      hold: formatPaise(f.hold),
      // The running balance: a new amount every row (formatPaise remembers repeating ones).
      available_after: paiseText(f.availableAfter),
      waits_for_funds: f.waitsForFunds,
    };
  }
}

/** Copies of these plans (their endorsements too), each forecast in file order (CensusCdForecast). */
export function forecastCensusCd(plans: readonly RowPlan[], policies: readonly PlanPolicy[]): RowPlan[] {
  const forecast = new CensusCdForecast(policies);
  return plans.map((p) =>
    forecast.row({
      ...p,
      endorsement: p.endorsement && { ...p.endorsement },
      exit: p.exit && { ...p.exit, deletions: p.exit.deletions.map((d) => ({ ...d })) },
    }),
  );
}

/**
 * Endorsements by type, net premium and each policy's CD impact against its available balance,
 * counted one plan at a time (`add`), so a census can be totalled as it is planned.
 */
export class CensusTotals {
  private readonly endorsements: Record<CensusEndorsementType, number> = {
    ENDORSEMENT_TYPE_ADDITION: 0,
    ENDORSEMENT_TYPE_DELETION: 0,
    ENDORSEMENT_TYPE_MODIFICATION: 0,
  };
  private readonly perPolicy = new Map<
    string,
    { debit: bigint; credit: bigint; after?: string; waiting: number }
  >();
  private premium = 0n;
  private readonly counts = { rows: 0, ok: 0, employees_created: 0, employees_updated: 0, exits: 0 };

  constructor(private readonly policies: readonly PlanPolicy[]) {}

  add(p: RowPlan): void {
    const { counts } = this;
    counts.rows += 1;
    if (p.status === 'ok') counts.ok += 1;
    if (p.creates_employee) counts.employees_created += 1;
    if (p.updates_employee) counts.employees_updated += 1;
    if (p.exit) counts.exits += 1;
    for (const e of createdEndorsements(p)) this.endorsement(e);
  }

  totals(): PlanTotals {
    const cd = [...this.perPolicy.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([policyId, acc]) => {
        const available = toPaise(this.policies.find((p) => p.id === policyId)?.cd_available ?? '0');
        const short = acc.debit - available;
        return {
          policy_id: policyId,
          available: formatPaise(available),
          debit: formatPaise(acc.debit),
          credit: formatPaise(acc.credit),
          shortfall: formatPaise(short > 0n ? short : 0n),
          ...(acc.after !== undefined && { available_after: acc.after, waiting: acc.waiting }),
        };
      });
    const { counts } = this;
    return {
      rows: counts.rows,
      ok: counts.ok,
      errors: counts.rows - counts.ok,
      employees_created: counts.employees_created,
      employees_updated: counts.employees_updated,
      exits: counts.exits,
      endorsements: { ...this.endorsements },
      premium: formatPaise(this.premium),
      cd,
    };
  }

  private endorsement(e: PlannedEndorsement): void {
    this.endorsements[e.type] += 1;
    const paise = toPaise(e.premium_impact);
    this.premium += paise;
    const acc = this.perPolicy.get(e.policy_id) ?? { debit: 0n, credit: 0n, waiting: 0 };
    if (paise >= 0n) acc.debit += paise;
    else acc.credit -= paise;
    if (e.cd) {
      acc.after = e.cd.available_after;
      if (e.cd.waits_for_funds) acc.waiting += 1;
    }
    this.perPolicy.set(e.policy_id, acc);
  }
}

/** The totals of these plans (CensusTotals). */
export function planTotals(plans: readonly RowPlan[], policies: readonly PlanPolicy[]): PlanTotals {
  const totals = new CensusTotals(policies);
  for (const p of plans) totals.add(p);
  return totals.totals();
}
