import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import proto from '@temporalio/proto';
import { readCensus } from '../usecases/census/file.js';
import { CENSUS_STARTS_AT_ONCE } from '../usecases/census/apply.js';
import { CENSUS_CHUNKS_AT_ONCE } from '../domain/census/batch.js';
import { CENSUS_COLUMNS } from '../domain/census/rows.js';
import { MAX_CENSUS_ROWS } from '../domain/upload-limits.js';
import { createTemporalClient } from '../infra/temporal-client.js';
import {
  durationMs,
  ENDORSEMENT_WORKFLOW,
  endorsementStartOptions,
} from '../workflows/endorsement/contract.js';
import { rssMb, traceWorkerGc } from './process-memory.js';
import { apiLoopDelay, FILE_PEER_PREFIX, startBenchStack, type BenchStack } from './stack.js';

/**
 * `npm run bench:census`: a census of BENCH_CENSUS_ROWS (default 10,000) existing employees' additions
 * for a `file` insurer, as CSV, each figure against a peer doing the same work with the least machinery:
 * - the dry run (POST ?dry_run=true) against parsing the same file alone (in this process);
 * - the commit (POST, then until the batch is COMPLETED and every endorsement's workflow has reviewed
 *   it and queued it for the cut-off) against the same endorsements created one by one through
 *   POST /v1/policy/endorsements, 10 at a time, until likewise queued, and against a bare loop of
 *   the Temporal client starting as many endorsement workflows at the census's start concurrency
 *   (CENSUS_CHUNKS_AT_ONCE x CENSUS_STARTS_AT_ONCE) on the no-op worker (no database), until that
 *   worker's workflow task backlog is empty.
 * Memory: the peak RSS of the worker and the API during the commit, the worker's heaps after its last
 * full collection. Past D16's bound of 10,000 rows a census the rows go as files of 10,000, each
 * committed as soon as the one before answers (as an HR team splits a larger intake), timed until
 * every batch is COMPLETED and every row reviewed; the dry run is the first file's.
 * BENCH_CENSUS_PEERS=none measures ours alone
 * (the 50,000-row run: BENCH_CENSUS_ROWS=50000 BENCH_CENSUS_PEERS=none);
 * BENCH_CENSUS_COMMIT=none measures the dry run alone (no commit, no commit peers).
 * BENCH_CENSUS_ROUNDS (default 5) repeats parsing and the dry run, alternately, and quotes the
 * median of each and the median of each round's ratio (the pair measured at the same moment), after
 * BENCH_CENSUS_WARMUP (default 5) rounds of both left out, as the hot paths leave out their warm-up:
 * the API's first dry runs after it starts pay V8's compiling of the census code (its CPU for one dry
 * run falls by 70–75 % over five rounds), which a running service has long paid. The first
 * round of each is kept as information (`firstRound`).
 * D18: the API's longest event-loop delay (its own monitor, reset before each) in each dry run and
 * during the commit's POSTs. Writes bench/results/census-latest.json.
 */
const ROWS = Number(process.env.BENCH_CENSUS_ROWS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_CENSUS_ROUNDS ?? 5);
const WARMUP = Number(process.env.BENCH_CENSUS_WARMUP ?? 5);
/** Rows per census file: D16 refuses a census of more. */
const FILE_ROWS = Math.min(ROWS, MAX_CENSUS_ROWS);
const RESULTS = path.resolve(import.meta.dirname, 'results');

const csvOf = (codes: readonly string[], policyId: string): Buffer => {
  const header = CENSUS_COLUMNS.map((c) => c.header).join(',');
  const at = (field: string) => CENSUS_COLUMNS.findIndex((c) => c.field === field);
  const lines = codes.map((code) => {
    const cells = CENSUS_COLUMNS.map(() => '');
    cells[at('employee_code')] = code;
    cells[at('action')] = 'add';
    cells[at('effective_date')] = '2026-12-01';
    cells[at('policy_id')] = policyId;
    return cells.join(',');
  });
  return Buffer.from(`${[header, ...lines].join('\n')}\n`);
};

const rate = (rows: number, ms: number) => Math.round((rows / ms) * 1000);

async function post(s: BenchStack, url: string, body: Buffer | string, type: string) {
  const res = await fetch(`${s.apiUrl}${url}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.token}`, 'content-type': type },
    body,
  });
  const json = (await res.json()) as { payload?: Record<string, unknown> };
  if (res.status >= 300) throw new Error(`${url}: ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
  return json.payload!;
}

async function untilCompleted(s: BenchStack, batchId: string): Promise<void> {
  for (;;) {
    const res = await fetch(`${s.apiUrl}/v1/policy/endorsements/batches/${batchId}?limit=1`, {
      headers: { authorization: `Bearer ${s.token}` },
    });
    const body = (await res.json()) as { payload: { batch: { status: string } } };
    if (body.payload.batch.status === 'BATCH_STATUS_COMPLETED') return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function oneByOne(s: BenchStack, employeeIds: readonly string[], policyId: string): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (next < employeeIds.length) {
        const id = employeeIds[next++]!;
        const body = {
          employee_id: id,
          policy_id: policyId,
          type: 'ADDITION',
          coverage_start_date: '2026-12-01',
          coverage_end_date: '2027-03-01',
        };
        // A 503 discarded the endorsement (D11): an integrator retries it, as the answer says.
        for (let attempt = 1; ; attempt++) {
          const sent = post(s, '/v1/policy/endorsements', JSON.stringify(body), 'application/json');
          const retry = await sent.then(
            () => false,
            (err: Error) => attempt < 5 && err.message.includes(': 503 '),
          );
          if (!retry) {
            await sent;
            break;
          }
          await new Promise((r) => setTimeout(r, 1_000));
        }
      }
    }),
  );
  return performance.now() - started;
}

/** Polls `done` every 200 ms until it holds. */
async function until(done: () => Promise<boolean>): Promise<void> {
  while (!(await done())) await new Promise((r) => setTimeout(r, 200));
}

/** Endorsements of the policy reviewed and queued for the file insurer's cut-off. */
async function queued(s: BenchStack, policyId: string): Promise<number> {
  const [row] = await s.orm.em
    .fork()
    .getConnection()
    .execute<{ n: number }[]>(
      `select count(*)::int as n from endorsements where policy_id = ? and cut_off_queued_at is not null`,
      [policyId],
    );
  return row!.n;
}

/** Peak RSS (MiB) of the worker and of the API while `run` runs, sampled every 100 ms. */
async function peakRss<T>(s: BenchStack, run: () => Promise<T>) {
  const peak = { worker: 0, api: 0 };
  const sample = async () => {
    peak.worker = Math.max(peak.worker, await rssMb(s.workerPid).catch(() => 0));
    peak.api = Math.max(peak.api, await rssMb(s.apiPid).catch(() => 0));
  };
  const timer = setInterval(() => void sample(), 100);
  try {
    const result = await run();
    await sample();
    return { result, peak };
  } finally {
    clearInterval(timer);
  }
}

/**
 * The bare peer of the commit: the Temporal client starting `rows` endorsement workflows (ids only,
 * the same start options and codec) at `inFlight` at once on the no-op worker's queue, whose routing
 * answers as a file insurer's, then until that queue's workflow task backlog is empty.
 */
async function bareStarts(s: BenchStack, rows: number, inFlight: number): Promise<number> {
  const config = { ...s.config, TEMPORAL_TASK_QUEUE: `${s.taskQueue}-noop` };
  const temporal = createTemporalClient(config);
  try {
    const [, , , policyId] = s.dataset.policyIds;
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < rows) {
          const i = next++;
          const input = {
            endorsementId: `${FILE_PEER_PREFIX}_${i}`,
            clientId: s.dataset.clientId,
            policyId: policyId!,
            employeeId: s.dataset.employeeIds[i % s.dataset.employeeIds.length]!,
            type: 'ENDORSEMENT_TYPE_ADDITION' as const,
            stuckAfterMs: durationMs(config.ENDORSEMENT_STUCK_AFTER),
            slaAfterMs: durationMs(config.INSURER_SLA_DEFAULT),
            batchId: 'batch_bench_peer',
          };
          await temporal.workflow.start(
            ENDORSEMENT_WORKFLOW,
            endorsementStartOptions(input, config.TEMPORAL_TASK_QUEUE),
          );
        }
      }),
    );
    // The backlog the no-op worker still has to run (the server's approximate count).
    let empty = 0;
    await until(async () => {
      const d = await temporal.workflowService.describeTaskQueue({
        namespace: config.TEMPORAL_NAMESPACE,
        taskQueue: { name: config.TEMPORAL_TASK_QUEUE },
        taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
        reportStats: true,
      });
      const backlog = Number(d.stats?.approximateBacklogCount ?? 0);
      empty = backlog === 0 ? empty + 1 : 0;
      return empty >= 2;
    });
    return performance.now() - started;
  } finally {
    await temporal.connection.close();
  }
}

const ratio = (peerMs: number, oursMs: number) => Number((peerMs / oursMs).toFixed(3));
const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

async function main(): Promise<void> {
  const commits = process.env.BENCH_CENSUS_COMMIT !== 'none';
  const peers = commits && process.env.BENCH_CENSUS_PEERS !== 'none';
  const gc = traceWorkerGc('census');
  const s = await startBenchStack(peers ? 2 * ROWS : ROWS);
  try {
    const [, censusPolicy, peerPolicy] = s.dataset.policyIds;
    await s.orm.em
      .fork()
      .getConnection()
      .execute(
        `update insurers set adapter = 'file', adapter_settings = '{"template":"generic","formats":["xlsx"]}' where code = 'BENCH'`,
      );
    const codes = Array.from({ length: ROWS }, (_, i) => `B-${i + 1}`);
    const files = Array.from({ length: Math.ceil(ROWS / FILE_ROWS) }, (_, f) =>
      csvOf(codes.slice(f * FILE_ROWS, (f + 1) * FILE_ROWS), censusPolicy!),
    );
    const file = files[0]!;

    const parses: number[] = [];
    const dryRuns: number[] = [];
    /** The API's longest event-loop delay during each dry run (D18: tens of milliseconds at most). */
    const loopMaxes: number[] = [];
    for (let round = 0; round < WARMUP + ROUNDS; round++) {
      const parseStart = performance.now();
      const parsed = await readCensus({ kind: 'csv', bytes: file });
      parses.push(performance.now() - parseStart);
      if (parsed.length !== FILE_ROWS) throw new Error(`parsed ${parsed.length} rows`);

      await apiLoopDelay(s);
      const dryStart = performance.now();
      const dryPayload = await post(s, '/v1/policy/endorsements/batches?dry_run=true', file, 'text/csv');
      dryRuns.push(performance.now() - dryStart);
      loopMaxes.push((await apiLoopDelay(s)).maxMs);
      const ok = (dryPayload.totals as { ok: number }).ok;
      if (ok !== FILE_ROWS) throw new Error(`dry run: ${ok} of ${FILE_ROWS} rows ok`);
    }
    const firstRound = { parseMs: Math.round(parses[0]!), dryRunMs: Math.round(dryRuns[0]!) };
    // The warm-up's rounds left out of the medians (their loop delays stay: D18 holds for a cold API too).
    parses.splice(0, WARMUP);
    dryRuns.splice(0, WARMUP);
    const [parseMs, dryMs] = [median(parses), median(dryRuns)];
    if (!commits) {
      const figures = {
        rows: ROWS,
        rounds: ROUNDS,
        warmUpRounds: WARMUP,
        firstRound,
        parse: {
          ms: Math.round(parseMs),
          rowsPerSecond: rate(FILE_ROWS, parseMs),
          all: parses.map(Math.round),
        },
        dryRun: {
          ms: Math.round(dryMs),
          rowsPerSecond: rate(FILE_ROWS, dryMs),
          all: dryRuns.map(Math.round),
          apiLoopDelayMaxMs: { median: median(loopMaxes), max: Math.max(...loopMaxes), all: loopMaxes },
        },
        ratios: {
          dryRunToParse: ratio(parseMs, dryMs),
          dryRunToParseByRound: median(parses.map((p, i) => ratio(p, dryRuns[i]!))),
        },
        goals: { dryRunToParse: 0.3 },
        load: os.loadavg().map((l) => Number(l.toFixed(2))),
      };
      await fs.mkdir(RESULTS, { recursive: true });
      await fs.writeFile(
        path.join(RESULTS, `census-${ROWS}-dry-run.json`),
        `${JSON.stringify(figures, null, 2)}\n`,
      );
      console.log(JSON.stringify(figures, null, 2));
      return;
    }

    const commit = await peakRss(s, async () => {
      const t = performance.now();
      const batches: string[] = [];
      await apiLoopDelay(s);
      for (const f of files)
        batches.push((await post(s, '/v1/policy/endorsements/batches', f, 'text/csv')).batch_id as string);
      const postsLoopMaxMs = (await apiLoopDelay(s)).maxMs;
      for (const batchId of batches) await untilCompleted(s, batchId);
      const completedMs = performance.now() - t;
      await until(async () => (await queued(s, censusPolicy!)) >= ROWS);
      return { completedMs, reviewedMs: performance.now() - t, postsLoopMaxMs };
    });
    const workerHeaps = await gc.heaps().catch(() => null);

    const single = peers
      ? await (async () => {
          const t = performance.now();
          await oneByOne(s, s.dataset.employeeIds.slice(ROWS, 2 * ROWS), peerPolicy!);
          await until(async () => (await queued(s, peerPolicy!)) >= ROWS);
          return performance.now() - t;
        })()
      : null;
    const bare = peers ? await bareStarts(s, ROWS, CENSUS_CHUNKS_AT_ONCE * CENSUS_STARTS_AT_ONCE) : null;

    const { completedMs, reviewedMs, postsLoopMaxMs } = commit.result;
    const figures = {
      rows: ROWS,
      files: files.length,
      rounds: ROUNDS,
      warmUpRounds: WARMUP,
      firstRound,
      parse: { ms: Math.round(parseMs), rowsPerSecond: rate(FILE_ROWS, parseMs) },
      dryRun: {
        ms: Math.round(dryMs),
        rowsPerSecond: rate(FILE_ROWS, dryMs),
        apiLoopDelayMaxMs: { median: median(loopMaxes), max: Math.max(...loopMaxes) },
      },
      commit: {
        untilCompletedMs: Math.round(completedMs),
        untilReviewedMs: Math.round(reviewedMs),
        /** The API's longest event-loop delay while it planned, stored and started the batches (the POSTs). */
        apiLoopDelayMaxMsDuringPosts: postsLoopMaxMs,
        rowsPerSecond: rate(ROWS, reviewedMs),
        peakRssMiB: commit.peak,
        workerHeapsAfterFullGcMiB: workerHeaps?.mb ?? null,
      },
      oneByOne: single === null ? null : { ms: Math.round(single), rowsPerSecond: rate(ROWS, single) },
      bareStarts:
        bare === null
          ? null
          : {
              ms: Math.round(bare),
              rowsPerSecond: rate(ROWS, bare),
              inFlight: CENSUS_CHUNKS_AT_ONCE * CENSUS_STARTS_AT_ONCE,
            },
      ratios: {
        dryRunToParse: ratio(parseMs, dryMs),
        commitToOneByOne: single === null ? null : ratio(single, reviewedMs),
        commitToBareStarts: bare === null ? null : ratio(bare, reviewedMs),
        // The most commitToOneByOne can be while the commit is no faster than bare starts of its
        // workflows: each endorsement runs one, so 2x needs one by one at least 2x the bare starts.
        oneByOneToBareStarts: single === null || bare === null ? null : ratio(single, bare),
      },
      goals: { dryRunToParse: 0.3, commitToOneByOne: 2, commitToBareStarts: 0.7 },
      load: os.loadavg().map((l) => Number(l.toFixed(2))),
    };
    await fs.mkdir(RESULTS, { recursive: true });
    const name = peers ? 'census-latest.json' : `census-${ROWS}-alone.json`;
    await fs.writeFile(path.join(RESULTS, name), `${JSON.stringify(figures, null, 2)}\n`);
    console.log(JSON.stringify(figures, null, 2));
  } finally {
    await s.stop();
    await gc.remove();
  }
}

await main();
