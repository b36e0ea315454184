import {
  appliedCensusEndorsements,
  censusRowOutcome,
  closeCensusRow,
  completeCensusBatch,
  employeeIdByCode,
  lockCensusRow,
  pendingCensusRows,
  pendingRowsOfEmployeesIn,
  type PendingRow,
  type RowClose,
} from '../../data/census/batches.js';
import { addDependent, listDependents } from '../../data/dependents/dependents.js';
import { markEndorsementWorkflowsStarted } from '../../data/endorsements/endorsements.js';
import { createOrFindEmployee, updateEmployee } from '../../data/employees.js';
import { TenantScope } from '../../data/scope.js';
import { EmailInUseError } from '../../domain/employees.js';
import { EndorsementRefused, type EndorsementRequest } from '../../domain/endorsements/endorsement.js';
import { samePerson } from '../../domain/census/dependents.js';
import type { Gender, Relationship } from '../../domain/enums.js';
import type { EndorsementType } from '../../domain/enums.js';
import { createEndorsement, startEndorsementWorkflow } from '../endorsements/endorsements.js';
import { type StartDeps } from '../workflow-start.js';

export interface RowRange {
  from: number;
  to: number;
}

/** Endorsement workflows an apply starts at once (bounded: the dev server and the worker share 2 cores). */
export const CENSUS_STARTS_AT_ONCE = 8;

/**
 * Applies a chunk of a batch's rows, each once, then starts the endorsement workflows of the
 * chunk's applied rows (BatchId set), CENSUS_STARTS_AT_ONCE at a time, and marks them started in
 * one statement.
 *
 * Transactions: the chunk's own rows (those whose employee exists or is created in the chunk) are
 * applied in ONE transaction, each row in a savepoint of it (applyRowIn), so a chunk costs one
 * commit instead of one per row. A refused row rolls its savepoint back and records FAILED in the
 * same transaction; any other error rolls the whole chunk back and the activity retries it. Rows
 * that reach outside the chunk (an employee created by another chunk's row, or a later chunk's
 * row whose employee this chunk creates) are applied as before, each in a transaction of its own,
 * so the chunk's transaction never waits for a row lock another chunk's transaction holds (no
 * lock cycle between parallel chunks: a lone row's transaction holds one census row at a time).
 *
 * Idempotent under retry and crash: a row's outcome commits with its writes (in the chunk's
 * commit or its own), and an apply skips rows that have one, so a retried chunk writes nothing
 * twice; a start of a workflow that runs or ran is a no-op, so a retry after a crash between the
 * commit and the starts starts them then (the endorsement reconciler would too). Concurrency: each
 * row is applied under its row lock (`for update`), so a chunk racing for a row waits, then skips it.
 *
 * Order across the parallel chunks: a row whose employee an earlier row of the file creates
 * (`employee_row`: a dependent, a second policy) applies that row first; and the rows whose
 * employee this chunk creates are applied here too before this chunk's ADDITIONs are started, so
 * the dependents exist when the employee's ADDITION is approved and enrols the covered family.
 */
export async function applyCensusRange(
  deps: StartDeps,
  scope: TenantScope,
  batchId: string,
  range: RowRange,
  today: string,
  beat: () => void = () => undefined,
): Promise<{ applied: number; failed: number }> {
  let applied = 0;
  let failed = 0;
  const elsewhere: number[] = [];
  const inRange = (row: number) => row >= range.from && row <= range.to;
  const tally = (row: number, outcome: 'APPLIED' | 'FAILED' | null) => {
    if (outcome === 'APPLIED') applied += 1;
    if (outcome === 'FAILED') failed += 1;
    if (outcome && !inRange(row)) elsewhere.push(row);
    beat();
  };
  const alone = async (row: number) => tally(row, await applyRow(scope, batchId, row, today));
  const own: number[] = [];
  for (const { row, employeeRow } of await pendingCensusRows(scope, batchId, range)) {
    if (employeeRow !== null && !inRange(employeeRow)) {
      await alone(employeeRow);
      await alone(row);
    } else own.push(row);
  }
  if (own.length > 0) {
    const outcomes = await scope.transaction(async (tx) => {
      const done: [number, 'APPLIED' | 'FAILED' | null][] = [];
      let open: RowClose | undefined;
      for (const row of own) {
        open = await applyRowIn(tx, batchId, row, today, open);
        done.push([row, outcomeOf(open)]);
        beat();
      }
      if (open) await closeCensusRow(tx, batchId, open);
      return done;
    });
    for (const [row, outcome] of outcomes) tally(row, outcome);
  }
  for (const row of await pendingRowsOfEmployeesIn(scope, batchId, range)) await alone(row);
  const made = await appliedCensusEndorsements(scope, batchId, range, elsewhere);
  const unstarted = made.filter((e) => !e.workflow_started);
  let next = 0;
  const lane = async () => {
    while (next < unstarted.length) {
      const e = unstarted[next++]!;
      await startEndorsementWorkflow(
        deps,
        scope,
        {
          id: e.id,
          clientId: scope.clientId,
          policyId: e.policy_id,
          employeeId: e.employee_id,
          type: e.type as EndorsementType,
          batchId,
        },
        { mark: false },
      );
      beat();
    }
  };
  await Promise.all(Array.from({ length: Math.min(CENSUS_STARTS_AT_ONCE, unstarted.length) }, lane));
  await markEndorsementWorkflowsStarted(
    scope,
    unstarted.map((e) => e.id),
  );
  return { applied, failed };
}

/**
 * One row in its own transaction (a row outside the chunk's): applyRowIn, closed and committed alone.
 * Returns what happened now (null: the row already had an outcome).
 */
function applyRow(
  scope: TenantScope,
  batchId: string,
  row: number,
  today: string,
): Promise<'APPLIED' | 'FAILED' | null> {
  return scope.transaction(async (tx) => {
    const close = await applyRowIn(tx, batchId, row, today);
    await closeCensusRow(tx, batchId, close);
    return outcomeOf(close);
  });
}

/** What happened to a row now (null: it already had an outcome). */
const outcomeOf = (c: RowClose): 'APPLIED' | 'FAILED' | null => c.outcome?.outcome ?? null;

/**
 * One row inside the caller's transaction: its writes in a savepoint (writeRow), opened with the
 * row's lock. Answers how the savepoint closes, which the caller sends in the message of the
 * transaction's next statement (the next row's lock, data/census/batches.ts) or on its own before
 * the commit: a refusal rolls the savepoint back and records FAILED with the reason, so nothing of a
 * failed row is written; an applied row's writes stay with its outcome. `previous`: the close of
 * the row before it in this transaction, still to send. Any other error goes up (the caller's
 * transaction rolls back, the activity retries).
 */
async function applyRowIn(
  tx: TenantScope,
  batchId: string,
  row: number,
  today: string,
  previous?: RowClose,
): Promise<RowClose> {
  const r = await lockCensusRow(tx, batchId, row, previous);
  if (!r || r.outcome) return { row, writes: 'keep' };
  try {
    // The row's writes on a scope of their own (an empty identity map, the same transaction), so
    // nothing a refused row read stays behind in the chunk's.
    const made = await writeRow(TenantScope.of(tx.em, tx.clientId), batchId, r, today);
    return { row, writes: 'keep', outcome: { outcome: 'APPLIED', ...made, reason: null } };
  } catch (err) {
    const reason = refusalOf(err);
    if (reason === null) throw err;
    const failed = { outcome: 'FAILED' as const, employeeId: null, endorsementId: null, reason };
    return { row, writes: 'undo', outcome: failed };
  }
}

/**
 * A locked row's writes (in its savepoint): the employee (created by code, D6's create-or-find,
 * or found and its changed details updated as Update Employee does), then the endorsement through
 * D7's create (its checks again, against what is there now) or an exit's status and DELETIONs.
 * Answers the employee and the endorsement the row's outcome names. A refusal (an e-mail another
 * employee holds included) is thrown.
 */
async function writeRow(
  tx: TenantScope,
  batchId: string,
  r: PendingRow,
  today: string,
): Promise<{ employeeId: string; endorsementId: string | null }> {
  if (r.plan.employee_row !== null) await employeeRowApplied(tx, batchId, r.plan.employee_row);
  const employeeId = await employeeOf(tx, r);
  if (!employeeId) throw new EndorsementRefused('EMPLOYEE_NOT_FOUND', 'no employee has this code');
  if (r.plan.updates_employee) await updateDetails(tx, employeeId, r, today);
  const dependentId = r.person?.relationship ? await dependentOf(tx, employeeId, r) : undefined;
  // The batch rides on each endorsement, so a late start by the reconciler sets BatchId too.
  const actor = { tokenId: r.actor_token_id, batchId };
  const made = r.plan.exit
    ? await exit(tx, employeeId, r, actor, today)
    : r.plan.endorsement
      ? [
          await createEndorsement(
            tx,
            { ...requestOf(r, employeeId), ...(dependentId && { dependentId }) },
            actor,
            today,
          ),
        ]
      : [];
  return { employeeId, endorsementId: made[0]?.id ?? null };
}

/** A refusal as a FAILED row's reason; null for an error that is not one (the activity retries). */
function refusalOf(err: unknown): string | null {
  if (err instanceof EndorsementRefused) return `${err.code}${err.detail ? `: ${err.detail}` : ''}`;
  if (err instanceof EmailInUseError) return 'EMAIL_IN_USE: the official e-mail belongs to another employee';
  return null;
}

/**
 * The row that creates this row's employee must be APPLIED (applyCensusRange applies it first): a
 * FAILED one fails this row with its reason. Still pending is not a refusal: the activity retries.
 */
async function employeeRowApplied(tx: TenantScope, batchId: string, employeeRow: number): Promise<void> {
  const found = await censusRowOutcome(tx, batchId, employeeRow);
  if (found?.outcome === 'APPLIED') return;
  if (!found?.outcome) throw new Error(`census row ${employeeRow} has no outcome yet`);
  const why = found.reason ? ` (${found.reason})` : '';
  throw new EndorsementRefused(
    'EMPLOYEE_NOT_FOUND',
    `row ${employeeRow}, which creates this employee, is ${found.outcome}${why}`,
  );
}

/**
 * The row's changed details, written as Update Employee writes them (data/employees.ts: the e-mail
 * key's uniqueness, the members' name, the audit entry); only the cells the row gives.
 */
async function updateDetails(tx: TenantScope, employeeId: string, r: PendingRow, today: string) {
  const p = r.person ?? {};
  await updateEmployee(
    tx,
    employeeId,
    {
      ...(p.name && { name: p.name }),
      ...(p.email && { email: p.email }),
      ...(p.phone && { phoneNumber: p.phone }),
      ...(p.date_of_birth && { dateOfBirth: p.date_of_birth }),
      ...(p.gender && { gender: p.gender as Gender }),
    },
    { today, actor: { tokenId: r.actor_token_id } },
  );
}

/**
 * An exit (domain/census/employee.ts), as Update Employee and usecases/endorsements/exits.ts do it: INACTIVE
 * leaving on the row's date, then in `automatic` mode the planned DELETIONs through D7's create
 * (checked again). All in the row's transaction: one refused rolls the status back too.
 */
async function exit(
  tx: TenantScope,
  employeeId: string,
  r: PendingRow,
  actor: { tokenId: string | null; batchId: string },
  today: string,
) {
  const { date_of_leaving: dateOfLeaving, mode, deletions } = r.plan.exit!;
  await updateEmployee(tx, employeeId, { status: 'INACTIVE', dateOfLeaving }, { today, actor });
  if (mode !== 'automatic') return [];
  const made = [];
  for (const d of deletions) {
    const req = {
      employeeId,
      policyId: d.policy_id,
      type: d.type,
      coverageStartDate: d.coverage_start_date,
      coverageEndDate: d.coverage_end_date,
    };
    made.push(await createEndorsement(tx, req, actor, today));
  }
  return made;
}

/**
 * A dependent's row's person: `add` upserts it (data/dependents/dependents.ts finds it again by employee,
 * relationship, name and date of birth, so a re-applied row, in this batch or another, adds no one
 * twice); `delete` finds it. Inside the row's transaction: a refusal after it writes nothing.
 */
async function dependentOf(tx: TenantScope, employeeId: string, r: PendingRow): Promise<string> {
  const p = r.person!;
  const person = {
    relationship: p.relationship as Relationship,
    name: p.name!,
    dateOfBirth: p.date_of_birth!,
  };
  if (r.plan.adds_dependent) {
    const added = await addDependent(
      tx,
      employeeId,
      { ...person, gender: p.gender as Gender, ...(p.event_date && { eventDate: p.event_date }) },
      { tokenId: r.actor_token_id },
    );
    if (added) return added.id;
  } else {
    const wanted = { ...person, date_of_birth: person.dateOfBirth };
    const found = (await listDependents(tx, employeeId))?.find((d) =>
      samePerson({ ...d, date_of_birth: d.dateOfBirth }, wanted),
    );
    if (found) return found.id;
  }
  throw new EndorsementRefused('DEPENDENT_NOT_FOUND', 'no such dependent of this employee');
}

/**
 * The row's employee: created (or found) from the staged details for a new one, else by code, as the
 * row's lock read it. A row that creates an employee is applied before the rows naming it (earlier in
 * their transaction, or committed before it: applyCensusRange), so the lock finds it; when it found
 * none, the code is looked up once more before the row is refused.
 */
async function employeeOf(tx: TenantScope, r: PendingRow): Promise<string | undefined> {
  const p = r.person;
  // Only a row planned to create the employee creates it (a dependent's, or one updating, never).
  if (!p || !r.plan.creates_employee) return r.employee_id ?? employeeIdByCode(tx, r.plan.employee_code);
  const found = await createOrFindEmployee(
    tx,
    {
      employeeCode: r.plan.employee_code,
      name: p.name!,
      email: p.email!,
      phoneNumber: p.phone!,
      dateOfBirth: p.date_of_birth!,
      gender: p.gender as Gender,
      status: 'ACTIVE',
      ...(p.date_of_joining && { dateOfJoining: p.date_of_joining }),
    },
    { tokenId: r.actor_token_id },
  );
  return found.id;
}

function requestOf(r: PendingRow, employeeId: string): EndorsementRequest {
  const e = r.plan.endorsement!;
  return {
    employeeId,
    policyId: e.policy_id,
    type: e.type,
    coverageStartDate: e.coverage_start_date,
    coverageEndDate: e.coverage_end_date,
    // A dependent shares the employee's sum insured: its endorsement names none.
    ...(e.type !== 'ENDORSEMENT_TYPE_DELETION' && !r.person?.relationship && { sumInsured: e.sum_insured }),
  };
}

/** Completes the batch when no row is pending; returns the webhook deliveries to start (null: rows pending). */
export const completeCensus = (scope: TenantScope, batchId: string) => completeCensusBatch(scope, batchId);
