import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { payloadDataConverter, temporalConnectionOptions } from '../infra/temporal-client.js';
import {
  ENDORSEMENT_WORKFLOW,
  endorsementStartOptions,
  insurerDecisionSignal,
  type EndorsementWorkflowInput,
} from '../workflows/endorsement/contract.js';
import { median, medianOf } from './measure.js';
import type { LoadSummary } from './load.js';
import type { Load, Row } from './run.js';
import type { BenchStack } from './stack.js';

interface Plan {
  rounds: number;
  endorsements: number;
}

export const additionBody = (employeeId: string, policyId: string) =>
  JSON.stringify({
    employee_id: employeeId,
    policy_id: policyId,
    type: 'ADDITION',
    coverage_start_date: '2026-12-01',
    coverage_end_date: '2027-01-31',
  });

/** The input of an endorsement workflow for the no-op peer (an id no row has). */
export const peerInput = (s: BenchStack, policyId: string): EndorsementWorkflowInput => ({
  endorsementId: `end_peer${randomUUID().replace(/-/g, '')}`,
  clientId: s.dataset.clientId,
  policyId,
  employeeId: 'emp_peer',
  type: 'ENDORSEMENT_TYPE_ADDITION',
  stuckAfterMs: 7 * 86_400_000,
});

async function approvedCount(s: BenchStack, policyId: string): Promise<number> {
  const [row] = await s.orm.em.execute<{ n: string }[]>(
    "select count(*) as n from endorsements where policy_id = ? and status = 'ENDORSEMENT_STATUS_APPROVED'",
    [policyId],
  );
  return Number(row!.n);
}

export async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting in the benchmark');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Runs `task` with the worker process stopped (SIGSTOP), then lets it go on (SIGCONT). A task the
 * server handed to one of its open polls meanwhile times out and is retried: the next phase waits
 * for every endorsement to settle anyway.
 */
async function withWorkerPaused<T>(s: BenchStack, task: () => Promise<T>): Promise<T> {
  process.kill(s.workerPid, 'SIGSTOP');
  try {
    return await task();
  } finally {
    process.kill(s.workerPid, 'SIGCONT');
  }
}

/** Runs `task` over `items` with `concurrency` in flight; returns elapsed ms. */
export async function pool<T>(
  items: T[],
  concurrency: number,
  task: (item: T) => Promise<unknown>,
): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await task(items[next++]!);
    }),
  );
  return performance.now() - started;
}

/** 6 and 7: endorsement create latency, and endorsements completed per second from create to APPROVED. */
export async function endorsementScenarios(s: BenchStack, load: Load, plan: Plan): Promise<Row[]> {
  const connection = await Connection.connect(temporalConnectionOptions(s.config));
  const temporal = new Client({ connection, dataConverter: payloadDataConverter(s.config) });
  const headers = { authorization: `Bearer ${s.token}` };
  const [, createPolicy, throughputPolicy, latencyPolicy] = s.dataset.policyIds;
  const n = plan.endorsements;
  const employees = s.dataset.employeeIds;
  try {
    // 6. Create vs its peer: bare Koa + `pg` sending our create's statements and the same workflow
    // start (bench/peers/server.ts), on employees of its own, rounds alternating ours/peer; and, as
    // information, vs a bare loop of workflow starts. All on queues no running worker polls: the
    // worker is paused meanwhile, so each is the create alone; otherwise it would run the created
    // endorsements on the same cores while ours are timed, and nothing while the peers' are.
    const rounds = Math.max(1, plan.rounds);
    const chunks = (ids: string[]) =>
      Array.from({ length: rounds }, (_, r) =>
        ids
          .slice(Math.floor((r * n) / rounds), Math.floor(((r + 1) * n) / rounds))
          .map((id) => additionBody(id, createPolicy!)),
      );
    const ourCreates = chunks(employees.slice(0, n));
    // The peer's employees, from the far end of the dataset: no other phase creates for them.
    const peerCreates = chunks(employees.slice(-n));
    const idleQueue = `${s.taskQueue}-idle`;
    const starts = Array.from({ length: n }, () => peerInput(s, createPolicy!));
    const startLatencies: number[] = [];
    const creates = (url: string, bodies: string[]) =>
      load({ url, method: 'POST', headers, bodies, amount: bodies.length, warmupSeconds: 0 })();
    const { ours, peer, elapsed } = await withWorkerPaused(s, async () => {
      const a: LoadSummary[] = [];
      const b: LoadSummary[] = [];
      for (let r = 0; r < rounds; r++) {
        a.push(await creates(`${s.apiUrl}/v1/policy/endorsements`, ourCreates[r]!));
        b.push(await creates(`${s.peerUrl}/endorsements`, peerCreates[r]!));
      }
      return {
        ours: medianOf(a),
        peer: medianOf(b),
        elapsed: await pool(starts, 10, async (i) => {
          const t = performance.now();
          await temporal.workflow.start(ENDORSEMENT_WORKFLOW, endorsementStartOptions(i, idleQueue));
          startLatencies.push(performance.now() - t);
        }),
      };
    });
    const create: Row = {
      scenario: `POST /v1/policy/endorsements (${n} distinct, ${rounds} rounds)`,
      ours,
      peer,
      peerName: 'bare Koa + pg, same statements and workflow start',
      ratio: Number((ours.rps / peer.rps).toFixed(3)),
      goal: '>= 0.8x the peer; create p99 < 50 ms',
      met: false,
    };
    create.met = create.ratio >= 0.8 && create.ours.p99 < 50;
    const sorted = [...startLatencies].sort((a, b) => a - b);
    const startPeer = {
      rps: (n / elapsed) * 1000,
      p50: median(sorted),
      p99: sorted[Math.floor(sorted.length * 0.99)]!,
      non2xx: 0,
    };
    const bareStart: Row = {
      scenario: 'POST /v1/policy/endorsements vs a bare start',
      ours,
      peer: startPeer,
      peerName: 'bare workflow.start loop, same concurrency',
      ratio: Number((ours.rps / startPeer.rps).toFixed(3)),
      goal: 'informational (the start alone, without the statements)',
      met: true,
    };

    // 7. Completed per second: create -> APPROVED through the simulated insurer at zero delay. It starts
    // on a quiet stack, as its peer does: the creates above run on to APPROVED and would share the
    // worker with this phase.
    await waitFor(async () => (await approvedCount(s, createPolicy!)) >= n, 600_000);
    const bodies = employees.slice(n, 2 * n).map((id) => additionBody(id, throughputPolicy!));
    const t0 = performance.now();
    await load({
      url: `${s.apiUrl}/v1/policy/endorsements`,
      method: 'POST',
      headers,
      bodies,
      amount: n,
      warmupSeconds: 0,
    })();
    await waitFor(async () => (await approvedCount(s, throughputPolicy!)) >= n, 600_000);
    const oursSeconds = (performance.now() - t0) / 1000;
    // Peer: the same workflow with no-op activities, decision delivered with the start.
    const noopQueue = `${s.taskQueue}-noop`;
    const peerInputs = Array.from({ length: n }, () => peerInput(s, throughputPolicy!));
    const t1 = performance.now();
    await pool(peerInputs, 10, (i) =>
      temporal.workflow.signalWithStart(ENDORSEMENT_WORKFLOW, {
        ...endorsementStartOptions(i, noopQueue),
        signal: insurerDecisionSignal,
        signalArgs: [{ decision: 'APPROVED' }],
      }),
    );
    await Promise.all(
      peerInputs.map((i) =>
        temporal.workflow.getHandle(endorsementStartOptions(i, noopQueue).workflowId).result(),
      ),
    );
    const peerSeconds = (performance.now() - t1) / 1000;

    // One in flight: create -> APPROVED latency.
    const single: number[] = [];
    for (const id of employees.slice(2 * n, 2 * n + (plan.rounds > 3 ? 50 : 20))) {
      const t = performance.now();
      const res = await fetch(`${s.apiUrl}/v1/policy/endorsements`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: additionBody(id, latencyPolicy!),
      });
      const endorsementId = ((await res.json()) as { payload: { endorsement_id: string } }).payload
        .endorsement_id;
      await waitFor(async () => {
        const [row] = await s.orm.em.execute<{ status: string }[]>(
          'select status from endorsements where id = ?',
          [endorsementId],
        );
        return row?.status === 'ENDORSEMENT_STATUS_APPROVED';
      }, 60_000);
      single.push(performance.now() - t);
    }
    const singleSorted = [...single].sort((a, b) => a - b);
    const throughput: Row = {
      scenario: `endorsements completed per second, create -> APPROVED (${n})`,
      ours: {
        rps: n / oursSeconds,
        p50: median(single),
        p99: singleSorted[singleSorted.length - 1]!,
        non2xx: 0,
      },
      peer: { rps: n / peerSeconds, p50: 0, p99: 0, non2xx: 0 },
      peerName: 'same workflow, no-op activities',
      ratio: Number((oursSeconds > 0 ? peerSeconds / oursSeconds : 0).toFixed(3)),
      goal: '>= 0.8x the no-op workflow; one-in-flight p50 < 150 ms',
      met: false,
      note: 'p50/p99 are one-in-flight create -> APPROVED latency',
    };
    throughput.met = throughput.ratio >= 0.8 && throughput.ours.p50 < 150;
    return [create, bareStart, throughput];
  } finally {
    await connection.close();
  }
}
