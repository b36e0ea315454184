import fs from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  csvEmptyRows,
  csvMillionRows,
  jsonDeep,
  jsonManyNodes,
  xlsxEmptyRows,
  xlsxSharedStrings,
} from '../test/support/hostile-uploads.js';
import { rssMb } from './process-memory.js';
import { apiLoopDelay, startBenchStack, type BenchStack } from './stack.js';

/**
 * `npm run bench:uploads`: the hostile census uploads an attack found (a CSV of a million rows,
 * 10 MiB of empty rows, a workbook of 5 million empty rows, one of 5 million shared strings, JSON
 * of 3.5 million values, JSON two million levels deep), each sent by four connections three times
 * over, while /healthz is asked one request after another: its median and maximum beside the same
 * probe with no upload, the API's own event-loop delay (its metrics), the answers' statuses, and the
 * API's resident memory before and at its peak. Writes bench/results/uploads-latest.{json,md}.
 */
const ATTACKERS = 4;
const ROUNDS = 3;
const BASELINE_MS = 5_000;
const RESULTS = path.resolve(import.meta.dirname, 'results');

const CSV = 'text/csv';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const JSON_TYPE = 'application/json';

const HOSTILE: { name: string; type: string; file: () => Buffer }[] = [
  { name: 'CSV, a million one-character rows', type: CSV, file: csvMillionRows },
  { name: 'CSV, 10 MiB of empty rows', type: CSV, file: csvEmptyRows },
  { name: 'XLSX, 5 million empty rows', type: XLSX, file: xlsxEmptyRows },
  { name: 'XLSX, 5 million shared strings', type: XLSX, file: xlsxSharedStrings },
  {
    name: 'JSON, 10 MiB of {} (3.5 million values)',
    type: JSON_TYPE,
    file: () => jsonManyNodes(10 * 1024 * 1024),
  },
  {
    name: 'JSON, 4 MiB of {} (1.4 million values)',
    type: JSON_TYPE,
    file: () => jsonManyNodes(4 * 1024 * 1024 - 64),
  },
  { name: 'JSON, two million levels deep', type: JSON_TYPE, file: () => jsonDeep(2_000_000) },
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const round1 = (x: number) => Math.round(x * 10) / 10;

/** /healthz one request after another until `until` settles: each answer's time and status. */
async function probe<T>(s: BenchStack, until: Promise<T>) {
  await apiLoopDelay(s);
  let done = false;
  const settled = until.finally(() => (done = true));
  const times: number[] = [];
  const statuses = new Set<number>();
  let peakRss = await rssMb(s.apiPid);
  while (!done) {
    const t = performance.now();
    const res = await fetch(`${s.apiUrl}/healthz`);
    await res.arrayBuffer();
    times.push(performance.now() - t);
    statuses.add(res.status);
    peakRss = Math.max(peakRss, await rssMb(s.apiPid));
    await sleep(10);
  }
  const result = await settled;
  return {
    result,
    apiLoopDelay: await apiLoopDelay(s),
    healthz: { polls: times.length, medianMs: round1(median(times)), maxMs: round1(Math.max(...times)) },
    statuses: [...statuses],
    peakRss,
  };
}

async function attack(s: BenchStack, type: string, file: Buffer) {
  const answers: Record<string, number> = {};
  await Promise.all(
    Array.from({ length: ATTACKERS }, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const res = await fetch(`${s.apiUrl}/v1/policy/endorsements/batches?dry_run=true`, {
          method: 'POST',
          headers: { 'content-type': type, authorization: `Bearer ${s.token}` },
          body: file,
        });
        const body = (await res.json()) as { title?: string; detail?: string };
        const key = `${res.status} ${body.title ?? ''}: ${body.detail ?? ''}`;
        answers[key] = (answers[key] ?? 0) + 1;
      }
    }),
  );
  return answers;
}

async function main(): Promise<void> {
  const s = await startBenchStack(100);
  try {
    const rows = [];
    const baseline = await probe(s, sleep(BASELINE_MS));
    rows.push({ upload: 'none (the probe alone)', bytes: 0, ...baseline, result: undefined });
    for (const h of HOSTILE) {
      const file = h.file();
      const rssBefore = await rssMb(s.apiPid);
      const t = performance.now();
      const run = await probe(s, attack(s, h.type, file));
      rows.push({
        upload: h.name,
        bytes: file.length,
        wallMs: Math.round(performance.now() - t),
        answers: run.result,
        healthz: run.healthz,
        healthzStatuses: run.statuses,
        apiLoopDelay: run.apiLoopDelay,
        rssMiB: { before: rssBefore, peak: run.peakRss, growth: run.peakRss - rssBefore },
      });
    }
    const figures = {
      at: new Date().toISOString(),
      attackers: ATTACKERS,
      rounds: ROUNDS,
      note: 'healthz: sequential GET /healthz while the uploads ran; RSS of the API process (MiB)',
      rows,
    };
    await fs.mkdir(RESULTS, { recursive: true });
    await fs.writeFile(path.join(RESULTS, 'uploads-latest.json'), `${JSON.stringify(figures, null, 2)}\n`);
    const md = [
      `# Hostile uploads (${ATTACKERS} connections × ${ROUNDS}), ${figures.at}`,
      '',
      '| upload | bytes | /healthz polls | median ms | max ms | API loop delay p99 / max ms | API RSS before → peak MiB | answers |',
      '|---|---|---|---|---|---|---|---|',
      ...rows.map((r) =>
        'answers' in r
          ? `| ${r.upload} | ${r.bytes} | ${r.healthz.polls} | ${r.healthz.medianMs} | ${r.healthz.maxMs} | ${r.apiLoopDelay.p99Ms} / ${r.apiLoopDelay.maxMs} | ${r.rssMiB?.before} → ${r.rssMiB?.peak} | ${Object.entries(
              r.answers ?? {},
            )
              .map(([k, n]) => `${n}× ${k}`)
              .join('; ')} |`
          : `| ${r.upload} | 0 | ${r.healthz.polls} | ${r.healthz.medianMs} | ${r.healthz.maxMs} | ${r.apiLoopDelay.p99Ms} / ${r.apiLoopDelay.maxMs} | ${r.peakRss} | |`,
      ),
      '',
    ].join('\n');
    await fs.writeFile(path.join(RESULTS, 'uploads-latest.md'), md);
    process.stdout.write(md);
  } finally {
    await s.stop();
  }
}

await main();
