import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { payloadDataConverter, temporalConnectionOptions } from '../infra/temporal-client.js';
import { measure, median, medianOf, type Figures } from './measure.js';
import { rssMb, traceWorkerGc } from './process-memory.js';
import { additionBody as body, waitFor } from './endorsements.js';
import { countStatus, decideThroughApi, noopUpdates } from './scale-decisions.js';
import { BENCH_SETTINGS, startBenchStack, type BenchStack } from './stack.js';

/**
 * `npm run bench:scale [-- --quick]`: the service with N endorsements open at once (BENCH_SCALE_OPEN,
 * default 10,000; 500 with --quick), each SENT_TO_INSURER and waiting for its insurer's decision (a
 * `manual` insurer: nothing decides on its own), against the same stack with none open. Measured in
 * both states: the hot reads, endorsement creates, the worker's memory (its RSS, and its V8 heaps after
 * their last full collection, from the worker's `--trace-gc`), `ops stuck`'s wall time and the
 * Web UI's visibility query; then the N decisions through POST /v1/insurer/decisions against as many
 * no-op decision Updates to no-op workflows. Writes bench/results/scale-latest.{json,md}.
 */
const quick = process.argv.includes('--quick');
const OPEN = Number(process.env.BENCH_SCALE_OPEN ?? (quick ? 500 : 10_000));
const PLAN = quick
  ? { rounds: 3, seconds: 1, warmup: 0.5, connections: 10, creates: 200 }
  : { rounds: 3, seconds: 5, warmup: 1, connections: 10, creates: 500 };
const SENT = 'ENDORSEMENT_STATUS_SENT_TO_INSURER';
const UI_QUERY = `EndorsementStatus = '${SENT}'`;
const RESULTS = path.resolve(import.meta.dirname, 'results');
const ROOT = path.resolve(import.meta.dirname, '..');
/** Progress on stderr: a 10,000 run takes the better part of an hour on 2 loaded cores. */
const say = (what: string) => process.stderr.write(`bench:scale ${new Date().toISOString()} ${what}\n`);
const gcTrace = traceWorkerGc('bench-scale');

interface Snapshot {
  reads: Record<string, Figures>;
  creates: Figures;
  worker_rss_mb: number;
  /** Live objects: the worker's V8 heaps after their last full collection, summed over its threads. */
  worker_heap_mb: number;
  ops_stuck_ms: number;
  visibility: { count_ms: number; first_page_ms: number; full_list_ms: number; listed: number };
  load_avg: number[];
}

interface Opening {
  create_seconds: number;
  all_sent_seconds: number;
  creates_per_second: number;
  worker_memory: { sent: number; rss_mb: number; heap_mb: number }[];
}

const timed = async (task: () => Promise<unknown>): Promise<number> => {
  const t = performance.now();
  await task();
  return performance.now() - t;
};

async function repeat(task: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < PLAN.rounds; i++) times.push(await timed(task));
  return median(times);
}

/** `npm run -s ops -- stuck --json` as an operator runs it, against this stack. */
const opsStuck = (s: BenchStack) =>
  promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/ops.ts', 'stuck', '--json'], {
    cwd: ROOT,
    env: { ...s.env, LOG_LEVEL: 'warn' },
    maxBuffer: 64 * 1024 * 1024,
  });

/** What the Web UI issues for the filter: a count and the first page, and (informational) every row. */
async function visibility(temporal: Client): Promise<Snapshot['visibility']> {
  const firstPage = async () => {
    let n = 0;
    for await (const _ of temporal.workflow.list({ query: UI_QUERY, pageSize: 20 })) if (++n >= 20) break;
  };
  let listed = 0;
  const all = async () => {
    listed = 0;
    for await (const _ of temporal.workflow.list({ query: UI_QUERY, pageSize: 1000 })) listed++;
  };
  return {
    count_ms: await repeat(() => temporal.workflow.count(UI_QUERY)),
    first_page_ms: await repeat(firstPage),
    full_list_ms: await repeat(all),
    listed,
  };
}

/** The bench's hot reads, each the median of its rounds. */
async function snapshotReads(
  s: BenchStack,
  plan = { rounds: PLAN.rounds, seconds: PLAN.seconds },
): Promise<Record<string, Figures>> {
  const h = { authorization: `Bearer ${s.token}` };
  const { clientId, membersPolicyId, employeeIds } = s.dataset;
  const urls: Record<string, string> = {
    'GET /v1/policy/': `${s.apiUrl}/v1/policy/?client_id=${clientId}`,
    'GET /v1/policy/{id}/members?limit=50': `${s.apiUrl}/v1/policy/${membersPolicyId}/members?limit=50`,
    'GET /v1/client/employees/profile': `${s.apiUrl}/v1/client/employees/profile?employee_id=${employeeIds[42]}`,
  };
  const reads: Record<string, Figures> = {};
  for (const [name, url] of Object.entries(urls)) {
    const runs = [];
    for (let i = 0; i < plan.rounds; i++)
      runs.push(
        await measure({
          url,
          headers: h,
          connections: PLAN.connections,
          durationSeconds: plan.seconds,
          warmupSeconds: PLAN.warmup,
        }),
      );
    reads[name] = medianOf(runs);
  }
  return reads;
}

/** Everything measured in one state; the creates last, since they open endorsements themselves. */
async function snapshot(s: BenchStack, temporal: Client, createPolicy: string): Promise<Snapshot> {
  const h = { authorization: `Bearer ${s.token}` };
  const reads = await snapshotReads(s);
  const ops_stuck_ms = await repeat(() => opsStuck(s));
  const vis = await visibility(temporal);
  const worker_rss_mb = await rssMb(s.workerPid);
  const worker_heap_mb = (await gcTrace.heaps()).mb;
  const created = await measure({
    url: `${s.apiUrl}/v1/policy/endorsements`,
    method: 'POST',
    headers: h,
    bodies: s.dataset.employeeIds.slice(0, PLAN.creates).map((id) => body(id, createPolicy)),
    amount: PLAN.creates,
    connections: PLAN.connections,
    warmupSeconds: 0,
  });
  return {
    reads,
    creates: medianOf([created]),
    worker_rss_mb,
    worker_heap_mb,
    ops_stuck_ms,
    visibility: vis,
    load_avg: os.loadavg().map((l) => Number(l.toFixed(2))),
  };
}

/** Opens N endorsements through the API and waits until every one is SENT_TO_INSURER (the rows). */
async function openEndorsements(s: BenchStack, policyId: string): Promise<Opening> {
  const started = performance.now();
  const created = await measure({
    url: `${s.apiUrl}/v1/policy/endorsements`,
    method: 'POST',
    headers: { authorization: `Bearer ${s.token}` },
    bodies: s.dataset.employeeIds.slice(0, OPEN).map((id) => body(id, policyId)),
    amount: OPEN,
    connections: PLAN.connections,
    warmupSeconds: 0,
  });
  if (created.non2xx + created.errors) throw new Error(`${created.non2xx + created.errors} creates failed`);
  const createSeconds = (performance.now() - started) / 1000;
  // The worker's memory as they reach SENT_TO_INSURER: flat once its workflow cache is full, if bounded.
  const memory: Opening['worker_memory'] = [];
  let sampled = 0;
  await waitFor(async () => {
    const sent = await countStatus(s, policyId, SENT);
    if (performance.now() - sampled > 5_000 || sent >= OPEN) {
      sampled = performance.now();
      memory.push({ sent, rss_mb: await rssMb(s.workerPid), heap_mb: (await gcTrace.heaps()).mb });
    }
    return sent >= OPEN;
  }, 3_600_000);
  const sentSeconds = (performance.now() - started) / 1000;
  // Each workflow, past its row, submits to the (manual) insurer and settles to wait: let it settle.
  await new Promise((r) => setTimeout(r, 10_000));
  return {
    create_seconds: Number(createSeconds.toFixed(1)),
    all_sent_seconds: Number(sentSeconds.toFixed(1)),
    creates_per_second: Number(created.rps.toFixed(1)),
    worker_memory: memory,
  };
}

async function main(): Promise<void> {
  const startedAt = Date.now();
  const s = await startBenchStack(Math.max(10_000, OPEN));
  const connection = await Connection.connect(temporalConnectionOptions(s.config));
  const temporal = new Client({ connection, dataConverter: payloadDataConverter(s.config) });
  try {
    // An insurer decided by people: its endorsements wait SENT_TO_INSURER until a decision arrives.
    await s.orm.em.execute(`update insurers set adapter = 'manual' where code = 'BENCH'`);
    const [, openPolicy, baselineCreates, openCreates, peerPolicy] = s.dataset.policyIds;
    const loadAtStart = os.loadavg().map((l) => Number(l.toFixed(2)));
    say('warm-up');
    await snapshotReads(s, { rounds: 1, seconds: 2 });
    say('baseline: none open');
    const baseline = await snapshot(s, temporal, baselineCreates!);
    say(`opening ${OPEN}`);
    const opening = await openEndorsements(s, openPolicy!);
    say(`measuring with ${OPEN} open`);
    const open = await snapshot(s, temporal, openCreates!);
    say(`${OPEN} decisions through the API`);
    const decisions = await decideThroughApi(s, openPolicy!);
    say(`${OPEN} no-op Updates`);
    const peer = await noopUpdates(s, temporal, decisions.decisions, peerPolicy!);
    const figures = {
      at: new Date().toISOString(),
      mode: quick ? 'quick' : 'full',
      open: OPEN,
      plan: PLAN,
      settings: BENCH_SETTINGS,
      cpus: os.cpus().length,
      load_avg_at_start: loadAtStart,
      baseline,
      opening,
      with_open: open,
      decisions,
      noop_updates: peer,
      decisions_ratio: Number((decisions.per_second / peer.per_second).toFixed(3)),
      seconds: Math.round((Date.now() - startedAt) / 1000),
    };
    await fs.mkdir(RESULTS, { recursive: true });
    await fs.writeFile(path.join(RESULTS, 'scale-latest.json'), `${JSON.stringify(figures, null, 2)}\n`);
    const md = markdown(figures);
    await fs.writeFile(path.join(RESULTS, 'scale-latest.md'), md);
    process.stdout.write(md);
  } finally {
    await connection.close();
    await s.stop();
    await gcTrace.remove();
  }
}

const fmt = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));
const ratio = (a: number, b: number) => Number((a / Math.max(b, 0.001)).toFixed(2));

function markdown(f: {
  at: string;
  open: number;
  baseline: Snapshot;
  with_open: Snapshot;
  opening: Opening;
  decisions: { per_second: number; accepted: number; decisions: number; applied_seconds: number };
  noop_updates: { per_second: number; accepted: number };
  decisions_ratio: number;
  load_avg_at_start: number[];
}): string {
  const b = f.baseline;
  const o = f.with_open;
  const lines: string[] = [];
  const line = (what: string, x: number, y: number, goal: string, met: boolean) =>
    lines.push(`| ${what} | ${fmt(x)} | ${fmt(y)} | ${ratio(y, x)} | ${goal} | ${met ? 'yes' : '**no**'} |`);
  for (const name of Object.keys(b.reads)) {
    const [x, y] = [b.reads[name]!, o.reads[name]!];
    line(`${name} rps`, x.rps, y.rps, '>= 0.9x', y.rps >= 0.9 * x.rps);
    line(`${name} p99 ms`, x.p99, y.p99, '<= 1.1x', y.p99 <= 1.1 * Math.max(x.p99, 1));
  }
  line(
    'POST /v1/policy/endorsements rps',
    b.creates.rps,
    o.creates.rps,
    '>= 0.9x',
    o.creates.rps >= 0.9 * b.creates.rps,
  );
  line(
    'POST /v1/policy/endorsements p99 ms',
    b.creates.p99,
    o.creates.p99,
    '<= 1.1x',
    o.creates.p99 <= 1.1 * b.creates.p99,
  );
  line('worker RSS MB', b.worker_rss_mb, o.worker_rss_mb, 'informational (garbage and kept pages too)', true);
  line(
    'worker heaps after full GC MB',
    b.worker_heap_mb,
    o.worker_heap_mb,
    'informational (see below)',
    true,
  );
  // Bounded means flat once the worker's cache is full: the live heaps at the first sample past it
  // against the heaps with all N open (the RSS also moves with garbage and with what the allocator keeps).
  const cache = BENCH_SETTINGS.workerCachedWorkflows;
  const full = f.opening.worker_memory.find((r) => r.sent >= cache && r.heap_mb > 0);
  if (full) {
    const what = `worker heaps after full GC MB at ${full.sent} vs ${f.open} open (cache ${cache})`;
    line(what, full.heap_mb, o.worker_heap_mb, '<= 1.25x', o.worker_heap_mb <= 1.25 * full.heap_mb);
  }
  line(
    '`ops stuck` wall ms',
    b.ops_stuck_ms,
    o.ops_stuck_ms,
    '<= 1.1x',
    o.ops_stuck_ms <= 1.1 * b.ops_stuck_ms,
  );
  line(
    `visibility count ms (${UI_QUERY})`,
    b.visibility.count_ms,
    o.visibility.count_ms,
    'informational',
    true,
  );
  line(
    'visibility first page (20) ms',
    b.visibility.first_page_ms,
    o.visibility.first_page_ms,
    'informational',
    true,
  );
  line(
    `visibility every row ms (${b.visibility.listed} vs ${o.visibility.listed} rows)`,
    b.visibility.full_list_ms,
    o.visibility.full_list_ms,
    'informational (grows with N)',
    true,
  );
  return [
    `Run ${f.at}: ${f.open} endorsements open (SENT_TO_INSURER, manual insurer) vs none; load average at start ${f.load_avg_at_start.join(' / ')}, during the baseline ${b.load_avg.join(' / ')}, with them open ${o.load_avg.join(' / ')}.`,
    '',
    `| measure | none open | ${f.open} open | ratio | goal | met |`,
    '| --- | --- | --- | --- | --- | --- |',
    ...lines,
    '',
    `Opening them: ${f.opening.create_seconds} s to create (${f.opening.creates_per_second}/s), all SENT_TO_INSURER after ${f.opening.all_sent_seconds} s; worker memory (open: RSS / heaps after full GC, MB) ${f.opening.worker_memory.map((r) => `${r.sent}: ${r.rss_mb} / ${r.heap_mb}`).join(', ')}.`,
    '',
    '| decisions | per second | accepted | ratio |',
    '| --- | --- | --- | --- |',
    `| ${f.decisions.decisions} through POST /v1/insurer/decisions (500 per call, 2 calls in flight; all APPROVED in the rows after ${fmt(f.decisions.applied_seconds)} s) | ${fmt(f.decisions.per_second)} | ${f.decisions.accepted} | ${f.decisions_ratio} |`,
    `| as many no-op decision Updates to no-op workflows (32 in flight) | ${fmt(f.noop_updates.per_second)} | ${f.noop_updates.accepted} | 1 |`,
    '',
  ].join('\n');
}

await main();
