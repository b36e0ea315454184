import fs from 'node:fs/promises';
import path from 'node:path';
import { rssMb, traceWorkerGc } from './process-memory.js';
import { measure } from './measure.js';
import { additionBody, waitFor } from './endorsements.js';
import { countStatus } from './scale-decisions.js';
import { BENCH_SETTINGS, startBenchStack, type BenchStack } from './stack.js';

/**
 * `npm run bench:memory`: whether the worker's memory is bounded by its workflow cache or grows with
 * the endorsements open. Opens BENCH_MEMORY_OPEN endorsements (default 5,000) in steps of
 * BENCH_MEMORY_STEP (default 1,000) against a `manual` insurer (each waits SENT_TO_INSURER, as
 * endorsements wait for days), and after each step, once every one is SENT and the worker has been
 * idle a while, reads the worker's resident set (/proc), its V8 heaps after their last full collection
 * (the worker runs with `--trace-gc`; summed over its threads, the workflow thread's included: live
 * objects, where the RSS also counts garbage and memory the allocator kept) and the SDK's own
 * `temporal_sticky_cache_size` (its metrics endpoint). The cache is BENCH_SETTINGS.workerCachedWorkflows (1,000;
 * `BENCH_TUNING='{"workerCachedWorkflows":250}'` for another). Writes bench/results/memory-latest.{json,md}.
 */
const OPEN = Number(process.env.BENCH_MEMORY_OPEN ?? 5_000);
const STEP = Number(process.env.BENCH_MEMORY_STEP ?? 1_000);
/** Idle time before a reading: the workflows settle to wait, and V8 collects when idle. */
const SETTLE_MS = Number(process.env.BENCH_MEMORY_SETTLE_MS ?? 20_000);
const SENT = 'ENDORSEMENT_STATUS_SENT_TO_INSURER';
const RESULTS = path.resolve(import.meta.dirname, 'results');
const say = (what: string) => process.stderr.write(`bench:memory ${new Date().toISOString()} ${what}\n`);

interface Reading {
  open: number;
  rss_mb: number;
  heap_after_full_gc_mb: number;
  full_gcs: number;
  sticky_cache: number;
}

const gcTrace = traceWorkerGc('bench-memory');

/** The SDK's gauge of workflows held in the worker's cache, as Prometheus scrapes it. */
async function stickyCache(s: BenchStack): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${s.env.WORKER_METRICS_PORT}/metrics`)).text();
  const lines = text.split('\n').filter((l) => l.startsWith('temporal_sticky_cache_size'));
  return lines.reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
}

async function reading(s: BenchStack, open: number): Promise<Reading> {
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const heap = await gcTrace.heaps();
  return {
    open,
    rss_mb: await rssMb(s.workerPid),
    heap_after_full_gc_mb: heap.mb,
    full_gcs: heap.fullGcs,
    sticky_cache: await stickyCache(s),
  };
}

async function openStep(s: BenchStack, policyId: string, from: number, to: number): Promise<void> {
  const created = await measure({
    url: `${s.apiUrl}/v1/policy/endorsements`,
    method: 'POST',
    headers: { authorization: `Bearer ${s.token}` },
    bodies: s.dataset.employeeIds.slice(from, to).map((id) => additionBody(id, policyId)),
    amount: to - from,
    connections: 10,
    warmupSeconds: 0,
  });
  if (created.non2xx + created.errors) throw new Error(`${created.non2xx + created.errors} creates failed`);
  await waitFor(async () => (await countStatus(s, policyId, SENT)) >= to, 3_600_000);
}

function markdown(at: string, cache: number, readings: Reading[]): string {
  const first = readings.find((r) => r.open >= cache) ?? readings.at(-1)!;
  const last = readings.at(-1)!;
  return [
    `Run ${at}: worker at rest (${SETTLE_MS / 1000} s idle) after each step, workflow cache ${cache}.`,
    '',
    '| endorsements open (SENT_TO_INSURER) | worker RSS MB | V8 heaps after their last full GC, MB | full GCs so far | workflows in the cache |',
    '|---|---|---|---|---|',
    ...readings.map(
      (r) => `| ${r.open} | ${r.rss_mb} | ${r.heap_after_full_gc_mb} | ${r.full_gcs} | ${r.sticky_cache} |`,
    ),
    '',
    `At ${last.open} open against ${first.open} (the first reading with the cache full): RSS ${(last.rss_mb / first.rss_mb).toFixed(2)}x, heaps ${(last.heap_after_full_gc_mb / first.heap_after_full_gc_mb).toFixed(2)}x.`,
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const s = await startBenchStack(Math.max(10_000, OPEN));
  try {
    // An insurer decided by people: its endorsements wait SENT_TO_INSURER until a decision arrives.
    await s.orm.em.execute(`update insurers set adapter = 'manual' where code = 'BENCH'`);
    const policyId = s.dataset.policyIds[1]!;
    const readings = [await reading(s, 0)];
    say(`none open: ${JSON.stringify(readings[0])}`);
    for (let open = STEP; open <= OPEN; open += STEP) {
      await openStep(s, policyId, open - STEP, open);
      readings.push(await reading(s, open));
      say(JSON.stringify(readings.at(-1)));
    }
    const at = new Date().toISOString();
    const cache = BENCH_SETTINGS.workerCachedWorkflows;
    await fs.mkdir(RESULTS, { recursive: true });
    await fs.writeFile(
      path.join(RESULTS, 'memory-latest.json'),
      `${JSON.stringify({ at, cache, settle_ms: SETTLE_MS, readings }, null, 2)}\n`,
    );
    const md = markdown(at, cache, readings);
    await fs.writeFile(path.join(RESULTS, 'memory-latest.md'), md);
    process.stdout.write(md);
  } finally {
    await s.stop();
    await gcTrace.remove();
  }
}

await main();
