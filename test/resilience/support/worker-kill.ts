import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { client as http } from '../../support/http.js';
import { stack } from '../../support/stack.js';
import { kill9, ownTarget, startWorker, stopChildren, type Child } from './children.js';
import {
  acceptedIds,
  compareWithTemporal,
  postAdditions,
  retriedAttempts,
  runFigures,
  openCount,
  seedRun,
  waitAllFinal,
} from './endorsement-run.js';
import { endReconcilers } from './reconcilers.js';
import { report } from './report.js';

export interface WorkerKillPlan {
  endorsements: number;
  kills: number;
  /** POST rate, so the posts span the kills. */
  perSecond: number;
  /** Bound on the wait for every endorsement to be final after the last kill. */
  settleMs: number;
}

/**
 * Fault 1: the worker (worker/main.ts as a child process) is SIGKILLed `kills` times, each time
 * 1.5–4 s after it started polling, while endorsements are posted and decided by the simulated
 * insurer; a new worker starts right after each kill. Pass: every endorsement final, no duplicate
 * member row or ledger entry, the API's GET equal to the workflow's result and search attribute.
 */
export async function workerKillRun(plan: WorkerKillPlan): Promise<void> {
  const taskQueue = `kill-${stack().runId}-${plan.endorsements}`;
  const target = ownTarget(taskQueue);
  const api = http(
    (await stack().startApi({ config: { ...stack().config, TEMPORAL_TASK_QUEUE: taskQueue } })).url,
  );
  const world = await seedRun(plan.endorsements);
  const workerEnv = { SIMULATED_INSURER_DELAY_MS: '500' };
  const started = Date.now();
  let worker: Child = await startWorker(target, workerEnv);
  const killedAfterMs: number[] = [];
  const openAtKill: number[] = [];
  try {
    const posting = postAdditions(() => api, world, world.employeeIds, {
      concurrency: 8,
      perSecond: plan.perSecond,
      retryUntil: Date.now() + 600_000,
    });
    for (let k = 0; k < plan.kills; k++) {
      await sleep(1500 + Math.floor(Math.random() * 2500));
      killedAfterMs.push(Date.now() - started);
      openAtKill.push(await openCount(world));
      await kill9(worker);
      worker = await startWorker(target, workerEnv);
    }
    const outcomes = await posting;
    const accepted = acceptedIds(outcomes);
    expect(accepted, 'every POST accepted').to.have.length(plan.endorsements);

    const open = await waitAllFinal(world, plan.settleMs);
    const settledMs = Date.now() - started;
    const figures = await runFigures(world);
    const disagreements = await compareWithTemporal(api, world);
    report('worker SIGKILL', {
      kills: plan.kills,
      killedAtSeconds: killedAfterMs.map((ms) => Math.round(ms / 100) / 10),
      openAtKill,
      activityRetries: await retriedAttempts(world),
      allFinalAfterSeconds: Math.round(settledMs / 1000),
      ...figures,
      disagreements: disagreements.length,
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
  } finally {
    await stopChildren();
    await endReconcilers(stack().temporal);
  }
}
