import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import type { RunningCluster } from '../../infra/temporal-cluster.js';
import { ENDORSEMENT_WORKFLOW, endorsementWorkflowId } from '../../workflows/endorsement/contract.js';
import { client as http } from '../support/http.js';
import { stack } from '../support/stack.js';
import { ownTarget, startWorker, stopChildren } from '../resilience/support/children.js';
import {
  acceptedIds,
  compareWithTemporal,
  postAdditions,
  retriedAttempts,
  runFigures,
  seedRun,
  waitAllFinal,
  type RunWorld,
} from '../resilience/support/endorsement-run.js';
import { endReconcilers } from '../resilience/support/reconcilers.js';
import { report } from '../resilience/support/report.js';

/** The cluster of this run; these tests only make sense on one (`npm run test:cluster`). */
export function runCluster(): RunningCluster {
  const cluster = stack().cluster;
  if (!cluster)
    throw new Error('this test needs the stack on a Temporal cluster: run it with npm run test:cluster');
  return cluster;
}

export interface FaultPlan {
  name: string;
  endorsements: number;
  /** POST rate, so the posts span the fault. */
  perSecond: number;
  /** Waits a moment into the run, injects the fault and returns what it did (for the report). */
  fault(cluster: RunningCluster, world: RunWorld): Promise<Record<string, unknown>>;
  settleMs: number;
}

/**
 * Endorsements posted through the API while a fault hits the cluster, decided by the simulated insurer
 * in a worker process (worker/main.ts) that reaches Temporal through the front door. Pass: every POST
 * accepted (503s retried with the same Idempotency-Key, as a client does), every endorsement final
 * and APPROVED once (no duplicate member row, ledger entry or workflow), the API agreeing with each
 * workflow's result and search attribute, and the visibility store's count per status (PostgreSQL
 * visibility) equal to the application's PostgreSQL.
 */
export async function clusterFaultRun(plan: FaultPlan): Promise<void> {
  const cluster = runCluster();
  const taskQueue = `cluster-${stack().runId}-${plan.endorsements}`;
  const api = http(
    (await stack().startApi({ config: { ...stack().config, TEMPORAL_TASK_QUEUE: taskQueue } })).url,
  );
  const world = await seedRun(plan.endorsements);
  const started = Date.now();
  await startWorker(ownTarget(taskQueue), { SIMULATED_INSURER_DELAY_MS: '500' });
  try {
    const posting = postAdditions(() => api, world, world.employeeIds, {
      concurrency: 8,
      perSecond: plan.perSecond,
      retryUntil: Date.now() + 600_000,
    });
    const injected = await plan.fault(cluster, world);
    const outcomes = await posting;
    expect(acceptedIds(outcomes), 'every POST accepted').to.have.length(plan.endorsements);

    const open = await waitAllFinal(world, plan.settleMs);
    const settledMs = Date.now() - started;
    const figures = await runFigures(world);
    const disagreements = await compareWithTemporal(api, world);
    const visibility = await visibilityAgrees(world, figures.byStatus);
    report(plan.name, {
      ...injected,
      retriedPosts: outcomes.filter((o) => o.attempts > 1).length,
      activityRetries: await retriedAttempts(world),
      allFinalAfterSeconds: Math.round(settledMs / 1000),
      ...figures,
      disagreements: disagreements.length,
      visibility,
    });

    expect(open, 'endorsements still open').to.equal(0);
    expect(figures.endorsements).to.equal(plan.endorsements);
    expect(figures.byStatus).to.deep.equal({ ENDORSEMENT_STATUS_APPROVED: plan.endorsements });
    expect(figures.duplicateMemberRows).to.equal(0);
    expect(figures.duplicateActivePersons).to.equal(0);
    expect(figures.ledgerEntries).to.equal(plan.endorsements);
    expect(figures.ledgerMismatches).to.equal(0);
    expect(figures.balanceDrift).to.equal('0.00');
    expect(disagreements, JSON.stringify(disagreements.slice(0, 5))).to.deep.equal([]);
    expect(visibility.workflows, 'one workflow per endorsement in visibility').to.equal(plan.endorsements);
    expect(visibility.unexplained, 'workflows of no endorsement and no discarded request').to.deep.equal([]);
    expect(visibility.completed, 'every endorsement workflow completed').to.equal(
      plan.endorsements + visibility.ofDiscardedRequests,
    );
    expect(visibility.byStatus).to.deep.equal(figures.byStatus);
  } finally {
    await stopChildren();
    await endReconcilers(stack().temporal);
  }
}

/**
 * What the cluster's visibility store answers for the run's client: its endorsement workflows (open or
 * closed), how many completed, and how many carry each EndorsementStatus. Each workflow must belong to
 * an endorsement of PostgreSQL, or to one the API discarded: a start that timed out while the cluster
 * could not answer (its row removed, the client answered 503 and retrying under a new id) can still
 * be carried out once the cluster recovers; that workflow finds no endorsement and changes nothing.
 * Visibility trails the workflows a little, so it is read until it agrees (bounded, 60 s); what it
 * last said is returned either way.
 */
async function visibilityAgrees(world: RunWorld, expected: Record<string, number>) {
  const { temporal } = stack();
  const scope = `WorkflowType = '${ENDORSEMENT_WORKFLOW}' AND ClientId = '${world.client.clientId}'`;
  const sql = world.orm.em.getConnection();
  const read = async () => {
    const byStatus: Record<string, number> = {};
    for (const status of Object.keys(expected)) {
      byStatus[status] = (
        await temporal.workflow.count(`${scope} AND EndorsementStatus = '${status}'`)
      ).count;
    }
    const ids = new Set<string>();
    for await (const w of temporal.workflow.list({ query: scope })) ids.add(w.workflowId);
    const ofRows = await sql.execute<{ id: string }[]>(`select id from endorsements where client_id = ?`, [
      world.client.clientId,
    ]);
    const discarded = await sql.execute<{ id: string }[]>(
      `select entity_id as id from audit_events where client_id = ? and entity = 'endorsement' and action = 'discard'`,
      [world.client.clientId],
    );
    const known = new Set(ofRows.map((r) => endorsementWorkflowId(r.id)));
    const discardedIds = new Set(discarded.map((r) => endorsementWorkflowId(r.id)));
    return {
      workflows: [...ids].filter((id) => known.has(id)).length,
      completed: (await temporal.workflow.count(`${scope} AND ExecutionStatus = 'Completed'`)).count,
      byStatus,
      withoutWorkflow: [...known].filter((id) => !ids.has(id)).length,
      ofDiscardedRequests: [...ids].filter((id) => discardedIds.has(id)).length,
      unexplained: [...ids].filter((id) => !known.has(id) && !discardedIds.has(id)),
    };
  };
  const total = Object.values(expected).reduce((n, v) => n + v, 0);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const seen = await read();
    const agrees =
      seen.workflows === total &&
      seen.completed === total + seen.ofDiscardedRequests &&
      seen.unexplained.length === 0 &&
      JSON.stringify(seen.byStatus) === JSON.stringify(expected);
    if (agrees || Date.now() > deadline) return seen;
    await sleep(1000);
  }
}
