import {
  insertCensusBatch,
  readCensusPolicies,
  readFamilies,
  readNamedEmployees,
  discardCensusBatch,
  type StagedRow,
} from '../../data/census/batches.js';
import { TenantScope, type SystemScope } from '../../data/scope.js';
import {
  listUnstartedCensusBatches,
  markCensusBatchWorkflowStarted,
} from '../../data/census/batch-starts.js';
import { parseCensusRecord, type CensusRow } from '../../domain/census/rows.js';
import {
  CensusCdForecast,
  CensusPlanner,
  CensusTotals,
  invalidRowPlan,
  type PlanEmployee,
  type PlanTotals,
  type RowPlan,
} from '../../domain/census/plan.js';
import { inTurns } from '../../domain/upload-limits.js';
import { RELATIONSHIP_OF } from '../../domain/census/dependents.js';
import type { PlanDependent } from '../../domain/census/snapshot.js';
import { emailKey } from '../../domain/employees.js';
import { newId } from '../../domain/ids.js';
import { CENSUS_BATCH_WORKFLOW, censusBatchStartOptions } from '../../workflows/census-batch/contract.js';
import { censusLines, type CensusInput, type CensusLine } from './file.js';
import { startRecordWorkflow, storeThenStart, type StartDeps } from '../workflow-start.js';

/** A census's plan: every row's, the totals, and what a commit stages. */
export interface CensusPlan {
  rows: RowPlan[];
  totals: PlanTotals;
  staged: StagedRow[];
}

/**
 * A new employee's details, or an existing one's a row updates (its given cells), as staged
 * (personal data: PostgreSQL only, never Temporal or logs).
 */
const personOf = (r: CensusRow): Record<string, string> =>
  Object.fromEntries(
    Object.entries({
      name: r.name,
      email: r.email,
      phone: r.phone,
      date_of_birth: r.dateOfBirth,
      gender: r.gender,
      date_of_joining: r.eventDate,
    }).filter(([, v]) => v !== undefined),
  ) as Record<string, string>;

/** A dependent's row as staged: who it names (found again by these at commit) and its life event. */
const dependentOf = (r: CensusRow): Record<string, string> => ({
  ...personOf({ ...r, email: undefined, phone: undefined, eventDate: undefined }),
  relationship: RELATIONSHIP_OF[r.relationship as keyof typeof RELATIONSHIP_OF],
  ...(r.eventDate && { event_date: r.eventDate }),
});

type ParsedRecord = ReturnType<typeof parseCensusRecord>;

/** Names gathered from the census before the employees they name are read (one read in flight at a time). */
export const CENSUS_NAMES_PER_READ = 2_000;

/**
 * The employees a census names, read while the census is still being parsed: the names (codes, and
 * the e-mails rows give) are sent CENSUS_NAMES_PER_READ at a time, each read once the one before
 * it has answered, so at most one is in flight and the reads keep pace with the parsing. An
 * employee named in two reads (by code in one, by e-mail in another) is kept once. Families are
 * read only for the codes a dependent's row names (readFamilies), in the same read as the names
 * that reach it, and put on their employees once every read has answered.
 */
class NamedEmployeesReader {
  private readonly employees = new Map<string, PlanEmployee>();
  private readonly families = new Map<string, PlanDependent[]>();
  private readonly codes = new Set<string>();
  private readonly emails = new Set<string>();
  private readonly familyCodes = new Set<string>();
  private pending = { codes: [] as string[], emails: [] as string[], families: [] as string[] };
  private reading: Promise<void> = Promise.resolve();
  private failure: { error: unknown } | null = null;

  constructor(
    private readonly scope: TenantScope,
    private readonly today: string,
  ) {}

  /** A row whose cells passed their rules: its code and e-mail are read (once each), and a dependent's row its family. */
  add(row: CensusRow): void {
    if (!this.codes.has(row.employeeCode)) {
      this.codes.add(row.employeeCode);
      this.pending.codes.push(row.employeeCode);
    }
    if (row.relationship !== 'self' && !this.familyCodes.has(row.employeeCode)) {
      this.familyCodes.add(row.employeeCode);
      this.pending.families.push(row.employeeCode);
    }
    const email = row.email ? emailKey(row.email) : undefined;
    if (email !== undefined && !this.emails.has(email)) {
      this.emails.add(email);
      this.pending.emails.push(email);
    }
    const { codes, emails, families } = this.pending;
    if (codes.length + emails.length + families.length >= CENSUS_NAMES_PER_READ) this.send();
  }

  /** Every employee named, with the families read, once the last names have been read. */
  async all(): Promise<PlanEmployee[]> {
    this.send();
    await this.reading;
    if (this.failure) throw this.failure.error;
    for (const [id, dependents] of this.families) {
      const employee = this.employees.get(id);
      if (employee) employee.dependents = dependents;
    }
    return [...this.employees.values()];
  }

  /** Once the reads already sent have answered (never rejects: a failure is kept for all()). */
  settled(): Promise<void> {
    return this.reading;
  }

  private send(): void {
    const { codes, emails, families } = this.pending;
    if (codes.length + emails.length + families.length === 0) return;
    this.pending = { codes: [], emails: [], families: [] };
    // Chained, and a failure kept for all(): a census refused part way never leaves a read unawaited.
    this.reading = this.reading.then(async () => {
      if (this.failure) return;
      try {
        const [named, read] = await Promise.all([
          codes.length + emails.length > 0 ? readNamedEmployees(this.scope, codes, emails, this.today) : [],
          readFamilies(this.scope, families, this.today),
        ]);
        for (const e of named) this.employees.set(e.id, e);
        for (const [id, dependents] of read) this.families.set(id, dependents);
      } catch (error) {
        this.failure = { error };
      }
    });
  }
}

/**
 * D16's dry run, also what a commit stores: reads the census, checks each row's cells, reads what
 * exists (the client's policies as the census starts, the employees it names while it is parsed:
 * NamedEmployeesReader), and plans every row with D7's own rules (domain/census/plan.ts).
 * Writes nothing. The same census against the same data plans the same.
 */
export async function planCensus(scope: TenantScope, input: CensusInput, today: string): Promise<CensusPlan> {
  const policies = readCensusPolicies(scope);
  // Handled at once (awaited once the census is read): a failure meanwhile is no unhandled rejection.
  policies.catch(() => undefined);
  const named = new NamedEmployeesReader(scope, today);
  const parsed: { line: CensusLine; result: ParsedRecord }[] = [];
  try {
    for await (const line of censusLines(input)) {
      const result = parseCensusRecord(line.row, line.record);
      if ('row' in result && line.unknownFields.length === 0) named.add(result.row);
      parsed.push({ line, result });
    }
  } catch (err) {
    // A census refused part way: the reads already sent answer before the refusal does.
    await Promise.allSettled([policies, named.settled()]);
    throw err;
  }
  const [read, employees] = await Promise.all([policies, named.all()]);
  const snapshot = { ...read, employees };
  const planner = new CensusPlanner(snapshot, today);
  // D17: each endorsement's CD hold forecast, rows before it counted (stored with the plan).
  const forecast = new CensusCdForecast(snapshot.policies);
  const totals = new CensusTotals(snapshot.policies);
  const rows: RowPlan[] = [];
  const staged: StagedRow[] = [];
  // In file order, ROWS_PER_TURN rows between turns of the event loop (D18): 10,000 rows planned
  // in one go would hold every other request on this process for a few hundred milliseconds.
  for await (const piece of inTurns(parsed)) {
    for (const { line, result } of piece) {
      const row = stagedRow(planner, line, result);
      const plan = forecast.row(row.plan);
      totals.add(plan);
      rows.push(plan);
      staged.push({ plan, person: row.person });
    }
  }
  return { rows, totals: totals.totals(), staged };
}

/** One parsed line's plan (an error plan for a line whose cells failed) and what its commit stages. */
function stagedRow(planner: CensusPlanner, line: CensusLine, result: ParsedRecord): StagedRow {
  const code = line.record.employee_code ?? '';
  if (line.unknownFields.length > 0) {
    const errors = line.unknownFields.map((f) => ({ field: 'row' as const, reason: `unknown field ${f}` }));
    return { plan: invalidRowPlan(line.row, code, errors), person: null };
  }
  if ('errors' in result) {
    const errors = [...result.errors, ...planner.missingForNew(line.record)];
    return { plan: invalidRowPlan(line.row, code, errors), person: null };
  }
  const plan = planner.plan(result.row);
  const person =
    result.row.relationship !== 'self'
      ? dependentOf(result.row)
      : plan.creates_employee
        ? personOf(result.row)
        : plan.updates_employee
          ? personOf({ ...result.row, eventDate: undefined })
          : null;
  return { plan, person: plan.status === 'ok' ? person : null };
}

/**
 * Stores a planned census as a RUNNING batch, then starts its workflow and records the start; a
 * failed start discards the batch (storeThenStart), so the client never holds a batch id without a
 * workflow. A crash between the insert and the start is healed by reconcileUnstartedCensusBatches.
 * The start is idempotent (workflow id from the batch id).
 */
export async function commitCensus(
  deps: StartDeps,
  scope: TenantScope,
  plan: CensusPlan,
  actor: { tokenId: string | null },
): Promise<string> {
  return storeThenStart(
    async () => {
      const batchId = newId('batch');
      await insertCensusBatch(
        scope,
        { id: batchId, totals: plan.totals, actorTokenId: actor.tokenId },
        plan.staged,
      );
      return batchId;
    },
    (batchId) =>
      startCensusWorkflow(deps, scope, { batchId, clientId: scope.clientId, rows: plan.rows.length }),
    (batchId) => discardCensusBatch(scope, batchId),
  );
}

/** Starts the batch's workflow (or finds it started) and records that; safe to repeat. */
async function startCensusWorkflow(
  deps: StartDeps,
  scope: TenantScope,
  input: { batchId: string; clientId: string; rows: number },
): Promise<void> {
  await startRecordWorkflow(
    deps,
    CENSUS_BATCH_WORKFLOW,
    censusBatchStartOptions(input, deps.config.TEMPORAL_TASK_QUEUE),
    () => markCensusBatchWorkflowStarted(scope, input.batchId),
  );
}

/**
 * Starts the workflow of every RUNNING census batch (any tenant) still without a recorded start
 * after the grace period (a crash between the commit's insert and its start). Idempotent through
 * the workflow id: a batch whose workflow runs or ran is only marked.
 */
export async function reconcileUnstartedCensusBatches(
  deps: StartDeps,
  system: SystemScope,
  graceMs: number,
): Promise<number> {
  const batches = await listUnstartedCensusBatches(system, graceMs);
  for (const b of batches) {
    const input = { batchId: b.id, clientId: b.clientId, rows: b.rowCount };
    await startCensusWorkflow(deps, TenantScope.of(system.em, b.clientId), input);
  }
  return batches.length;
}
