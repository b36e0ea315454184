import fs from 'node:fs/promises';
import path from 'node:path';
import { readCensus } from '../usecases/census-file.js';
import { CENSUS_COLUMNS } from '../domain/census.js';
import { startBenchStack, type BenchStack } from './stack.js';

/**
 * `npm run bench:census`: a census of BENCH_CENSUS_ROWS (default 10,000) existing employees' additions,
 * as CSV: the dry run (POST ?dry_run=true) and the commit (POST, then until the batch is COMPLETED:
 * every row applied and its endorsement workflow started), in rows per second and the peak RSS of
 * the API and worker processes, as ratios to parsing the same file alone (in this process) and to
 * the same endorsements created one by one through POST /v1/policy/endorsements (10 at a time).
 * Writes bench/results/census-latest.json.
 */
const ROWS = Number(process.env.BENCH_CENSUS_ROWS ?? 10_000);
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

/** Peak resident memory (MiB) of this process's children while `run` runs, sampled every 100 ms. */
async function peakChildRss<T>(run: () => Promise<T>): Promise<{ result: T; peakMiB: number }> {
  let peak = 0;
  const sample = async () => {
    let total = 0;
    for (const pid of await fs.readdir('/proc').catch(() => [] as string[])) {
      if (!/^\d+$/.test(pid)) continue;
      const status = await fs.readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
      if (Number(/PPid:\s+(\d+)/.exec(status)?.[1]) !== process.pid) continue;
      total += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
    }
    peak = Math.max(peak, total);
  };
  const timer = setInterval(() => void sample(), 100);
  try {
    const result = await run();
    await sample(); // a run shorter than a sampling pass still gets one figure
    return { result, peakMiB: Math.round(peak) };
  } finally {
    clearInterval(timer);
  }
}

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
        await post(s, '/v1/policy/endorsements', JSON.stringify(body), 'application/json');
      }
    }),
  );
  return performance.now() - started;
}

async function main(): Promise<void> {
  const s = await startBenchStack(2 * ROWS);
  try {
    const [, censusPolicy, peerPolicy] = s.dataset.policyIds;
    const codes = Array.from({ length: ROWS }, (_, i) => `B-${i + 1}`);
    const file = csvOf(codes, censusPolicy!);

    const parseStart = performance.now();
    const parsed = await readCensus({ kind: 'csv', bytes: file });
    const parseMs = performance.now() - parseStart;
    const parseRss = Math.round(process.memoryUsage().rss / 1024 / 1024);
    if (parsed.length !== ROWS) throw new Error(`parsed ${parsed.length} rows`);

    const dry = await peakChildRss(async () => {
      const t = performance.now();
      const payload = await post(s, '/v1/policy/endorsements/batches?dry_run=true', file, 'text/csv');
      const ok = (payload.totals as { ok: number }).ok;
      if (ok !== ROWS) throw new Error(`dry run: ${ok} of ${ROWS} rows ok`);
      return performance.now() - t;
    });
    const commit = await peakChildRss(async () => {
      const t = performance.now();
      const payload = await post(s, '/v1/policy/endorsements/batches', file, 'text/csv');
      await untilCompleted(s, payload.batch_id as string);
      return performance.now() - t;
    });
    const single = await peakChildRss(() =>
      oneByOne(s, s.dataset.employeeIds.slice(ROWS, 2 * ROWS), peerPolicy!),
    );

    const figures = {
      rows: ROWS,
      parse: { rowsPerSecond: rate(ROWS, parseMs), ms: Math.round(parseMs), benchProcessRssMiB: parseRss },
      dryRun: { rowsPerSecond: rate(ROWS, dry.result), ms: Math.round(dry.result), peakRssMiB: dry.peakMiB },
      commit: {
        rowsPerSecond: rate(ROWS, commit.result),
        ms: Math.round(commit.result),
        peakRssMiB: commit.peakMiB,
      },
      oneByOne: {
        rowsPerSecond: rate(ROWS, single.result),
        ms: Math.round(single.result),
        peakRssMiB: single.peakMiB,
      },
      ratios: {
        dryRunToParse: Number((parseMs / dry.result).toFixed(3)),
        commitToParse: Number((parseMs / commit.result).toFixed(3)),
        commitToOneByOne: Number((single.result / commit.result).toFixed(3)),
        dryRunToOneByOne: Number((single.result / dry.result).toFixed(3)),
      },
      note: 'peak RSS: API + worker + peer processes of the bench stack (children of this process)',
    };
    await fs.mkdir(RESULTS, { recursive: true });
    await fs.writeFile(path.join(RESULTS, 'census-latest.json'), `${JSON.stringify(figures, null, 2)}\n`);
    console.log(JSON.stringify(figures, null, 2));
  } finally {
    await s.stop();
  }
}

await main();
