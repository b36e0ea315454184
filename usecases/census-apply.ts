import {
  appliedCensusEndorsements,
  completeCensusBatch,
  employeeIdByCode,
  lockCensusRow,
  pendingCensusRows,
  setCensusRowOutcome,
  type PendingRow,
} from '../data/census.js';
import { addDependent, listDependents } from '../data/dependents.js';
import { createOrFindEmployee } from '../data/employees.js';
import type { TenantScope } from '../data/scope.js';
import { EndorsementRefused, type EndorsementRequest } from '../domain/endorsements.js';
import { samePerson } from '../domain/census-dependents.js';
import type { Gender, Relationship } from '../domain/enums.js';
import type { EndorsementType } from '../domain/enums.js';
import { createEndorsement, startEndorsementWorkflow, type StartDeps } from './endorsements.js';

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
  for (const row of await pendingCensusRows(scope, batchId, range)) {
    const outcome = await applyRow(scope, batchId, row, today);
    if (outcome === 'APPLIED') applied += 1;
    if (outcome === 'FAILED') failed += 1;
    beat();
  }
  const made = await appliedCensusEndorsements(scope, batchId, range);
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
 * create-or-find), then the endorsement through D7's create (its checks again, against what is
 * there now), then the row's outcome. A refusal rolls all of it back and records FAILED with the
 * reason in a second transaction: nothing of a failed row is written. Returns what happened now
 * (null: the row already had an outcome).
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
      const employeeId = await employeeOf(tx, r);
      if (!employeeId) throw new EndorsementRefused('EMPLOYEE_NOT_FOUND', 'no employee has this code');
      const dependentId = r.person?.relationship ? await dependentOf(tx, employeeId, r) : undefined;
      const created = r.plan.endorsement
        ? await createEndorsement(
            tx,
            { ...requestOf(r, employeeId), ...(dependentId && { dependentId }) },
            { tokenId: r.actor_token_id },
            today,
          )
        : null;
      await setCensusRowOutcome(tx, batchId, row, {
        outcome: 'APPLIED',
        employeeId,
        endorsementId: created?.id ?? null,
        reason: null,
      });
      return 'APPLIED' as const;
    });
  } catch (err) {
    if (!(err instanceof EndorsementRefused)) throw err;
    return scope.transaction(async (tx) => {
      const r = await lockCensusRow(tx, batchId, row);
      if (!r || r.outcome) return null;
      await setCensusRowOutcome(tx, batchId, row, {
        outcome: 'FAILED',
        employeeId: null,
        endorsementId: null,
        reason: `${err.code}${err.detail ? `: ${err.detail}` : ''}`,
      });
      return 'FAILED' as const;
    });
  }
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
  // A dependent's row names an existing employee (census-dependents.ts): never created from it.
  if (!p || p.relationship) return employeeIdByCode(tx, r.plan.employee_code);
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
