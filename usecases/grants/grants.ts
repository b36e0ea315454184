import { linkEndorsementToGrant } from '../../data/endorsements/endorsements.js';
import {
  discardUnstartedGrant,
  insertGrant,
  insertGrantItem,
  listOverlappingActivePolicies,
  listUnstartedGrants,
  lockGrant,
  markGrantTakenOver,
  markGrantWorkflowStarted,
  readGrantCandidates,
  readGrantItem,
  readPolicyPeriod,
  type StoredGrant,
  type StoredGrantItem,
} from '../../data/grants/grants.js';
import type { SystemScope } from '../../data/scope.js';
import { TenantScope } from '../../data/scope.js';
import { EndorsementRefused } from '../../domain/endorsements/endorsement.js';
import {
  checkGrantRequest,
  clipToPolicy,
  refusalOutcome,
  type CreatedGrant,
  type GrantRequest,
} from '../../domain/grants/grant.js';
import { GRANT_WORKFLOW, grantStartOptions } from '../../workflows/grant/contract.js';
import { createEndorsement } from '../endorsements/endorsements.js';
import { startRecordWorkflow, storeThenStart, type StartDeps } from '../workflow-start.js';

/** How long a request waits for Temporal before answering 503 (the client retries). */

/**
 * D9's create: one read (employee and candidate policies), the pure checks, one write storing the
 * grant PENDING with its audit entry; the caller starts the workflow. Not deduplicated by content
 * (see insertGrant): the Idempotency-Key is the way to retry safely.
 */
export async function createGrant(
  scope: TenantScope,
  req: GrantRequest,
  actor: { tokenId: string | null },
): Promise<CreatedGrant> {
  checkGrantRequest(await readGrantCandidates(scope, req), req);
  const id = await insertGrant(scope, req, actor);
  return { id, clientId: scope.clientId, employeeId: req.employeeId };
}

/** Starts the grant's workflow and records that it runs (idempotent: usecases/workflow-start.ts). */
export async function startGrantWorkflow(
  deps: StartDeps,
  scope: TenantScope,
  g: CreatedGrant,
): Promise<void> {
  await startRecordWorkflow(
    deps,
    GRANT_WORKFLOW,
    grantStartOptions(
      { grantId: g.id, clientId: g.clientId, employeeId: g.employeeId },
      deps.config.TEMPORAL_TASK_QUEUE,
    ),
    () => markGrantWorkflowStarted(scope, g.id),
  );
}

/**
 * Stores the grant, then starts its workflow; a failed start discards it (storeThenStart), so the
 * client never holds a request id without a workflow.
 */
export async function acceptGrant(
  deps: StartDeps,
  scope: TenantScope,
  req: GrantRequest,
  actor: { tokenId: string | null },
): Promise<CreatedGrant> {
  return storeThenStart(
    () => createGrant(scope, req, actor),
    (created) => startGrantWorkflow(deps, scope, created),
    (created) => discardUnstartedGrant(scope, created.id),
  );
}

/** Starts the workflow of every grant (any tenant) still without one after the grace period. */
export async function reconcileUnstartedGrants(
  deps: StartDeps,
  system: SystemScope,
  graceMs: number,
): Promise<number> {
  const rows = await listUnstartedGrants(system, graceMs);
  for (const r of rows) await startGrantWorkflow(deps, TenantScope.of(system.em, r.clientId), r);
  return rows.length;
}

/**
 * D9: the grant's target policies, in a stable order, once its workflow has taken it over (see
 * markGrantTakenOver). With policy_id, that policy only (if it is no longer active its item
 * records that); without, every ACTIVE policy of the client overlapping the period. Undefined when
 * there is no such grant.
 */
export async function takeOverGrant(
  system: SystemScope,
  grantId: string,
): Promise<{ policyIds: string[]; deliveries: string[] } | undefined> {
  const g = await markGrantTakenOver(system, grantId);
  if (!g) return undefined;
  const policyIds = g.policy_id
    ? [g.policy_id]
    : await listOverlappingActivePolicies(TenantScope.of(system.em, g.client_id), {
        startDate: g.start_date,
        endDate: g.end_date,
      });
  return { policyIds, deliveries: g.deliveries };
}

/**
 * One policy of the grant: its endorsement (through the endorsement use case, so D7's rules
 * apply) or the reason it was skipped or failed, with its grant_items row, in one transaction.
 * Concurrency and idempotency: the grant row's lock serialises attempts, and a retry after a
 * commit returns the stored item. Undefined when there is no such grant.
 */
export async function makeGrantItem(
  system: SystemScope,
  grantId: string,
  policyId: string,
  today: string,
): Promise<{ grant: StoredGrant; item: StoredGrantItem } | undefined> {
  return system.transaction(async (tx) => {
    const grant = await lockGrant(tx, grantId);
    if (!grant) return undefined;
    const tenant = TenantScope.of(tx.em, grant.client_id);
    const stored = await readGrantItem(tenant, grantId, policyId);
    return { grant, item: stored ?? (await createItem(tenant, grantId, grant, policyId, today)) };
  });
}

/**
 * Creates the ADDITION for one policy (D7's rules, dates clipped) or records why not. Its member
 * rows end on the grant's (clipped) end date: D10's rule ends them then, as for a DELETION.
 */
async function createItem(
  tx: TenantScope,
  grantId: string,
  g: StoredGrant,
  policyId: string,
  today: string,
): Promise<StoredGrantItem> {
  const policy = await readPolicyPeriod(tx, policyId);
  const period = clipToPolicy(
    { startDate: g.start_date, endDate: g.end_date },
    policy ?? { startDate: g.start_date, endDate: g.end_date },
  );
  let item: StoredGrantItem;
  try {
    const created = await createEndorsement(
      tx,
      {
        employeeId: g.employee_id,
        policyId,
        type: 'ENDORSEMENT_TYPE_ADDITION',
        coverageStartDate: period.startDate,
        coverageEndDate: period.endDate,
      },
      { tokenId: null },
      today,
    );
    // workflow_started_at stays null until the child's first activity sets it (within moments of
    // the child start). Should the grant stall before that, the endorsement reconciler starts the
    // same workflow id after its grace period, and the grant follows it: no endorsement is orphaned.
    await linkEndorsementToGrant(tx, created.id, grantId);
    item = { outcome: 'ENDORSEMENT', endorsement_id: created.id, detail: null, type: created.type };
  } catch (err) {
    if (!(err instanceof EndorsementRefused)) throw err;
    item = { ...refusalOutcome(err), endorsement_id: null, type: null };
  }
  await insertGrantItem(tx, grantId, policyId, item);
  return item;
}
