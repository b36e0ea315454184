import {
  insertCensusBatch,
  readCensusPolicies,
  readFamilies,
  readNamedEmployees,
  type NamedEmployees,
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
  codeAskedForNew,
  CensusTotals,
  invalidRowPlan,
  type PlanEmployee,
  type PlanTotals,
  type RowPlan,
} from '../../domain/census/plan.js';
import { inTurns } from '../../domain/upload-limits.js';
import { RELATIONSHIP_OF } from '../../domain/census/dependents.js';
import type { PlanDependent } from '../../domain/census/snapshot.js';
import { restatesDetails } from '../../domain/census/employee.js';
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

/** Names gathered from the census before the employees they name are read. */
export const CENSUS_NAMES_PER_READ = 2_000;
/**
 * Reads of those names on the database at once: two, so one is answered while the next is sent, and
 * the reads keep pace with the parsing (one at a time, a 10,000-row census's five reads outlast it).
 * Each read runs two statements (the employees, and the families a dependent's row names): a census
 * holds at most four of the pool's connections.
 */
const CENSUS_READS_IN_FLIGHT = 2;

/** One read's answer: the employees it found, the details and the families it read by employee id. */
interface NamedRead extends NamedEmployees {
  families: Map<string, PlanDependent[]>;
}

/**
 * The employees a census names, read while the census is still being parsed: the names (codes, and
 * the e-mails rows give) are sent CENSUS_NAMES_PER_READ at a time, CENSUS_READS_IN_FLIGHT reads at
 * once, each name once. Each row is planned once the read carrying its names has answered (the row's
 * `read`; `through` takes the reads up to it), so the planning of the first rows runs while the last
 * names are read. Every name a row's plan looks up goes no later than that row's read, so a row
 * planned then sees what it would with every employee read. An employee found twice (by code in one
 * read, by e-mail in another) is kept as first found. Stored details are read only for the codes of rows restating them
 * (restatesDetails: personal data no other row's plan looks at), families only for the codes a
 * dependent's row names (readFamilies), each in the read that carries the row, and put on their
 * employees as that read is taken.
 */
class NamedEmployeesReader {
  private readonly codes = new Set<string>();
  private readonly emails = new Set<string>();
  private readonly familyCodes = new Set<string>();
  private readonly detailCodes = new Set<string>();
  private pending = this.nothingPending();
  /** The reads sent, in order (each handled at once: a failure is thrown by `through`). */
  private readonly reads: Promise<NamedRead>[] = [];
  /** Reads taken by `through`, in order. */
  private taken = 0;
  private readonly found = new Map<string, PlanEmployee>();
  private failed = false;

  constructor(
    private readonly scope: TenantScope,
    private readonly today: string,
  ) {}

  /** The read that carries the names given now. */
  get read(): number {
    return this.reads.length;
  }

  /**
   * A row whose cells passed their rules: its code and e-mail are read, a dependent's row's family, and
   * the stored details of the employee a row restates. Its read.
   */
  add(row: CensusRow): number {
    const read = this.read;
    this.name(this.codes, this.pending.codes, row.employeeCode);
    if (row.relationship !== 'self') this.name(this.familyCodes, this.pending.families, row.employeeCode);
    if (row.email) this.name(this.emails, this.pending.emails, emailKey(row.email));
    if (restatesDetails(row)) this.name(this.detailCodes, this.pending.details, row.employeeCode);
    return this.sendWhenFull(read);
  }

  /** A failed row's code, where its report asks whether the employee is new (codeAskedForNew). Its read. */
  addCode(code: string | undefined): number {
    const read = this.read;
    if (code !== undefined) this.name(this.codes, this.pending.codes, code);
    return this.sendWhenFull(read);
  }

  /** The census is read to its end: the names not yet sent go. */
  finish(): void {
    this.send();
  }

  /** Whether a read up to `read` is still to be taken (none is when its names went in earlier reads). */
  taking(read: number): boolean {
    return this.taken <= read && this.taken < this.reads.length;
  }

  /**
   * The employees the reads up to `read` found that no read taken before did; the details and families
   * those reads brought put on their employees (found by this read or an earlier one).
   */
  async through(read: number): Promise<PlanEmployee[]> {
    const fresh: PlanEmployee[] = [];
    while (this.taking(read)) {
      const { employees, details, families } = await this.reads[this.taken++]!;
      for (const e of employees)
        if (!this.found.has(e.id)) {
          this.found.set(e.id, e);
          fresh.push(e);
        }
      for (const [id, stored] of details) {
        const employee = this.found.get(id);
        if (employee) employee.details = stored;
      }
      for (const [id, dependents] of families) {
        const employee = this.found.get(id);
        if (employee) employee.dependents = dependents;
      }
    }
    return fresh;
  }

  /** Once every read sent has answered or failed: a census refused part way leaves no read unawaited. */
  settled(): Promise<unknown> {
    return Promise.allSettled(this.reads);
  }

  private name(seen: Set<string>, pending: string[], name: string): void {
    if (seen.has(name)) return;
    seen.add(name);
    pending.push(name);
  }

  private nothingPending() {
    return {
      codes: [] as string[],
      emails: [] as string[],
      details: [] as string[],
      families: [] as string[],
    };
  }

  private pendingNames(): number {
    const { codes, emails, details, families } = this.pending;
    return codes.length + emails.length + details.length + families.length;
  }

  private sendWhenFull(read: number): number {
    if (this.pendingNames() >= CENSUS_NAMES_PER_READ) this.send();
    return read;
  }

  private send(): void {
    if (this.pendingNames() === 0) return;
    const { codes, emails, details, families } = this.pending;
    this.pending = this.nothingPending();
    const before = this.reads.at(-CENSUS_READS_IN_FLIGHT);
    const turn = before ? before.then(nothing, nothing) : Promise.resolve();
    const read = turn.then(async (): Promise<NamedRead> => {
      if (this.failed) return { employees: [], details: new Map(), families: new Map() };
      const names = { codes, emailKeys: emails, detailCodes: details };
      const [named, byEmployee] = await Promise.all([
        codes.length + emails.length + details.length > 0
          ? readNamedEmployees(this.scope, names, this.today)
          : { employees: [], details: new Map() },
        readFamilies(this.scope, families, this.today),
      ]).catch((error: unknown) => {
        // The reads after a failed one are not sent: the census is refused with the first failure.
        this.failed = true;
        throw error;
      });
      return { ...named, families: byEmployee };
    });
    // Handled at once: `through` or `settled` awaits it; a failure meanwhile is no unhandled rejection.
    read.catch(nothing);
    this.reads.push(read);
  }
}

const nothing = () => undefined;

/**
 * D16's dry run, also what a commit stores: reads the census, checks each row's cells, reads what
 * exists (the client's policies as the census starts, the employees it names while it is parsed:
 * NamedEmployeesReader), and plans every row with D7's own rules (domain/census/plan.ts), each once
 * the read carrying its names has answered. Writes nothing. The same census against the same data
 * plans the same.
 */
export async function planCensus(scope: TenantScope, input: CensusInput, today: string): Promise<CensusPlan> {
  const policies = readCensusPolicies(scope);
  // Handled at once (awaited once the census is read): a failure meanwhile is no unhandled rejection.
  policies.catch(nothing);
  const named = new NamedEmployeesReader(scope, today);
  const parsed: { line: CensusLine; result: ParsedRecord; read: number }[] = [];
  try {
    for await (const line of censusLines(input)) {
      const result = parseCensusRecord(line.row, line.record);
      // A line with unknown fields is planned without a look-up (stagedRow).
      const read =
        line.unknownFields.length > 0
          ? named.read
          : 'row' in result
            ? named.add(result.row)
            : named.addCode(codeAskedForNew(line.record));
      parsed.push({ line, result, read });
    }
    named.finish();
    const snapshot = { ...(await policies), employees: [] };
    const planner = new CensusPlanner(snapshot, today);
    // D17: each endorsement's CD hold forecast, rows before it counted (stored with the plan).
    const forecast = new CensusCdForecast(snapshot.policies);
    const totals = new CensusTotals(snapshot.policies);
    const rows: RowPlan[] = [];
    const staged: StagedRow[] = [];
    // In file order, ROWS_PER_TURN rows between turns of the event loop (D18): 10,000 rows planned
    // in one go would hold every other request on this process for a few hundred milliseconds.
    for await (const piece of inTurns(parsed)) {
      for (const { line, result, read } of piece) {
        if (named.taking(read)) planner.know(await named.through(read));
        const row = stagedRow(planner, line, result);
        const plan = forecast.row(row.plan);
        totals.add(plan);
        rows.push(plan);
        staged.push({ plan, person: row.person });
      }
    }
    return { rows, totals: totals.totals(), staged };
  } catch (err) {
    // A census refused part way: the reads already sent answer before the refusal does.
    await Promise.allSettled([policies, named.settled()]);
    throw err;
  }
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
