import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { tableRows } from '../adapters/file/table-reader.js';
import { CENSUS_COLUMNS } from '../domain/census/rows.js';
import { CENSUS_FILE_LIMITS } from '../domain/upload-limits.js';

/**
 * `node --import tsx bench/upload-parsing.ts`: a valid census of 10,000 rows read the way the API
 * reads it (yielding pieces on the main thread) beside the same parse in a worker thread: the time
 * to read it and the longest stretch the main thread ran no timer meanwhile, three runs each
 * (docs/security/uploads.md quotes them).
 */
const RUNS = 3;
const header = CENSUS_COLUMNS.map((c) => c.header).join(',');
const lines = Array.from(
  { length: 10_000 },
  (_, i) =>
    `E-${i},Person ${i},p${i}@example.com,+919811111111,1990-01-01,female,self,2026-11-01,500000,add,2026-12-01,pol_x`,
);
const file = Buffer.from(`${[header, ...lines].join('\n')}\n`);

/** The longest gap between runs of a timer set to fire every turn, while `run` runs. */
async function longestStretch<T>(
  run: () => Promise<T>,
): Promise<{ result: T; ms: number; stretchMs: number }> {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 0);
  const t = performance.now();
  try {
    const result = await run();
    return { result, ms: Math.round(performance.now() - t), stretchMs: Math.round(longest * 10) / 10 };
  } finally {
    clearInterval(timer);
  }
}

for (let i = 0; i < RUNS; i++) {
  const run = await longestStretch(async () => {
    let n = 0;
    for await (const _ of tableRows('census.csv', file, CENSUS_FILE_LIMITS)) n++;
    return n;
  });
  console.log(`yielding pieces: ${run.result} rows in ${run.ms} ms; longest stretch ${run.stretchMs} ms`);
}

const csvSync = createRequire(import.meta.url).resolve('csv-parse/sync');
const code = `
const { parentPort } = require('node:worker_threads');
const { parse } = require(${JSON.stringify(csvSync)});
parentPort.on('message', (bytes) => parentPort.postMessage(parse(Buffer.from(bytes), { relax_column_count: true })));`;
for (let i = 0; i < RUNS; i++) {
  const t = performance.now();
  const worker = new Worker(code, { eval: true });
  await new Promise((resolve) => worker.once('online', resolve));
  const startMs = Math.round(performance.now() - t);
  const copy = new Uint8Array(file);
  const run = await longestStretch(
    () =>
      new Promise<string[][]>((resolve) => {
        worker.once('message', resolve);
        worker.postMessage(copy, [copy.buffer]);
      }),
  );
  await worker.terminate();
  console.log(
    `worker thread: start-up ${startMs} ms; ${run.result.length} rows parsed and sent back in ${run.ms} ms; longest stretch ${run.stretchMs} ms`,
  );
}
