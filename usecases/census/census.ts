import {
  insertCensusBatch,
  readCensusSnapshot,
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
  CensusPlanner,
  invalidRowPlan,
  planTotals,
  forecastCensusCd,
  type PlanTotals,
  type RowPlan,
} from '../../domain/census/plan.js';
import { RELATIONSHIP_OF } from '../../domain/census/dependents.js';
import { emailKey } from '../../domain/employees.js';
import { newId } from '../../domain/ids.js';
import { CENSUS_BATCH_WORKFLOW, censusBatchStartOptions } from '../../workflows/census-batch/contract.js';
import { readCensus, type CensusInput } from './file.js';
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

/**
 * D16's dry run, also what a commit stores: reads the census, checks each row's cells, reads what
 * exists in three statements, and plans every row with D7's own rules (domain/census/plan.ts).
 * Writes nothing. The same census against the same data plans the same.
 */
export async function planCensus(scope: TenantScope, input: CensusInput, today: string): Promise<CensusPlan> {
  const lines = await readCensus(input);
  const parsed = lines.map((l) => ({ line: l, result: parseCensusRecord(l.row, l.record) }));
  const ok = parsed.flatMap((p) =>
    'row' in p.result && p.line.unknownFields.length === 0 ? [p.result.row] : [],
  );
  const snapshot = await readCensusSnapshot(
    scope,
    [...new Set(ok.map((r) => r.employeeCode))],
    [...new Set(ok.flatMap((r) => (r.email ? [emailKey(r.email)] : [])))],
    today,
  );
  const planner = new CensusPlanner(snapshot, today);
  const staged: StagedRow[] = parsed.map(({ line, result }) => {
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
  });
  // D17: each endorsement's CD hold forecast, rows before it counted (stored with the plan).
  const rows = forecastCensusCd(
    staged.map((s) => s.plan),
    snapshot.policies,
  );
  const forecast = staged.map((s, i) => ({ ...s, plan: rows[i]! }));
  return { rows, totals: planTotals(rows, snapshot.policies), staged: forecast };
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
