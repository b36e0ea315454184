import {
  appliedCensusEndorsements,
  censusRowOutcome,
  completeCensusBatch,
  employeeIdByCode,
  lockCensusRow,
  pendingCensusRows,
  pendingRowsOfEmployeesIn,
  setCensusRowOutcome,
  type PendingRow,
} from '../data/census.js';
import { addDependent, listDependents } from '../data/dependents.js';
import { createOrFindEmployee, updateEmployee } from '../data/employees.js';
import type { TenantScope } from '../data/scope.js';
import { EmailInUseError } from '../domain/employees.js';
import { EndorsementRefused, type EndorsementRequest } from '../domain/endorsements.js';
import { samePerson } from '../domain/census-dependents.js';
import type { Gender, Relationship } from '../domain/enums.js';
import type { EndorsementType } from '../domain/enums.js';
import { createEndorsement, startEndorsementWorkflow } from './endorsements.js';
import { type StartDeps } from './workflow-start.js';

export interface RowRange {
  from: number;
  to: number;
}

/**
 * Applies a chunk of a batch's rows, each once, then starts the endorsement workflows of the
 * chunk's applied rows (BatchId set). Each row is one transaction (applyRow); a refused row is
 * recorded FAILED and the next goes on. Idempotent under retry and crash: rows with an outcome
 * are skipped, and a start of a workflow that runs or ran is a no-op, so a retry after a crash
 * between a row's commit and its start starts it then (the endorsement reconciler would too).
 *
 * Order across the parallel chunks: a row whose employee an earlier row of the file creates
 * (`employee_row`: a dependent, a second policy) applies that row first (in its own transaction;
 * the row lock makes a chunk racing for it wait, then skip it). And the rows whose employee this
 * chunk creates are applied here too before this chunk's ADDITIONs are started, so the dependents
 * exist when the employee's ADDITION is approved and enrols the covered family.
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
  const apply = async (row: number) => {
    const outcome = await applyRow(scope, batchId, row, today);
    if (outcome === 'APPLIED') applied += 1;
    if (outcome === 'FAILED') failed += 1;
    if (outcome && (row < range.from || row > range.to)) elsewhere.push(row);
    beat();
  };
  for (const { row, employeeRow } of await pendingCensusRows(scope, batchId, range)) {
    if (employeeRow !== null) await apply(employeeRow);
    await apply(row);
  }
  for (const row of await pendingRowsOfEmployeesIn(scope, batchId, range)) await apply(row);
  const made = await appliedCensusEndorsements(scope, batchId, range, elsewhere);
  await Promise.all(
    made
      .filter((e) => !e.workflow_started)
      .map((e) =>
        startEndorsementWorkflow(deps, scope, {
          id: e.id,
          clientId: scope.clientId,
          policyId: e.policy_id,
          employeeId: e.employee_id,
          type: e.type as EndorsementType,
          batchId,
        }),
      ),
  );
  return { applied, failed };
}

/**
 * One row, in one transaction holding its row lock: the employee (created by code, D6's
 * create-or-find, or found and its changed details updated as Update Employee does), then the
 * endorsement through D7's create (its checks again, against what is there now) or an exit's
 * status and DELETIONs, then the row's outcome. A refusal (an e-mail another employee holds
 * included) rolls all of it back and records FAILED with the reason in a second transaction:
 * nothing of a failed row is written. Returns what happened now (null: the row already had an
 * outcome).
 */
async function applyRow(
  scope: TenantScope,
  batchId: string,
  row: number,
  today: string,
): Promise<'APPLIED' | 'FAILED' | null> {
  try {
    return await scope.transaction(async (tx) => {
      const r = await lockCensusRow(tx, batchId, row);
      if (!r || r.outcome) return null;
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
      await setCensusRowOutcome(tx, batchId, row, {
        outcome: 'APPLIED',
        employeeId,
        endorsementId: made[0]?.id ?? null,
        reason: null,
      });
      return 'APPLIED' as const;
    });
  } catch (err) {
    const reason = refusalOf(err);
    if (reason === null) throw err;
    return scope.transaction(async (tx) => {
      const r = await lockCensusRow(tx, batchId, row);
      if (!r || r.outcome) return null;
      await setCensusRowOutcome(tx, batchId, row, {
        outcome: 'FAILED',
        employeeId: null,
        endorsementId: null,
        reason,
      });
      return 'FAILED' as const;
    });
  }
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
 * An exit (domain/census-employee.ts), as Update Employee and usecases/exits.ts do it: INACTIVE
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
 * A dependent's row's person: `add` upserts it (data/dependents.ts finds it again by employee,
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

/** The row's employee: created (or found) from the staged details for a new one, else by code. */
async function employeeOf(tx: TenantScope, r: PendingRow): Promise<string | undefined> {
  const p = r.person;
  // Only a row planned to create the employee creates it (a dependent's, or one updating, never).
  if (!p || !r.plan.creates_employee) return employeeIdByCode(tx, r.plan.employee_code);
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
