import { Worker } from 'node:worker_threads';
import { tableRows } from './adapters/file/table-reader.js';
import { CENSUS_FILE_LIMITS } from './domain/upload-limits.js';
import { CENSUS_COLUMNS } from './domain/census.js';

const header = CENSUS_COLUMNS.map((c) => c.header).join(',');
const lines = Array.from({ length: 10_000 }, (_, i) => `E-${i},Person ${i},p${i}@example.com,+919811111111,1990-01-01,female,self,2026-11-01,500000,add,2026-12-01,pol_x`);
const file = Buffer.from([header, ...lines].join('\n') + '\n');

async function timed(label: string) {
  let last = performance.now(); let maxGap = 0;
  const timer = setInterval(() => { const n = performance.now(); maxGap = Math.max(maxGap, n - last); last = n; }, 0);
  const t = performance.now(); let n = 0;
  for await (const _ of tableRows('c.csv', file, CENSUS_FILE_LIMITS)) n++;
  clearInterval(timer);
  console.log(label, n, 'rows', Math.round(performance.now() - t), 'ms; longest stretch without a timer', maxGap.toFixed(1), 'ms');
}
for (let i = 0; i < 3; i++) await timed('yielding pieces (2 KiB)');

// The same parse in a worker thread: start-up, the file in, the rows back.
const code = `
const { parentPort } = require('node:worker_threads');
const { parse } = require('/work/wt-uploads/node_modules/csv-parse/dist/cjs/sync.cjs');
parentPort.on('message', (buf) => { parentPort.postMessage(parse(Buffer.from(buf), { relax_column_count: true })); });`;
for (let i = 0; i < 3; i++) {
  const t0 = performance.now();
  const w = new Worker(code, { eval: true });
  await new Promise((r) => w.once('online', r));
  const t1 = performance.now();
  const copy = new Uint8Array(file);
  let maxGap = 0; let last = performance.now();
  const timer = setInterval(() => { const n = performance.now(); maxGap = Math.max(maxGap, n - last); last = n; }, 0);
  const rows = await new Promise<string[][]>((r) => { w.once('message', r); w.postMessage(copy, [copy.buffer]); });
  clearInterval(timer);
  const t2 = performance.now();
  await w.terminate();
  console.log('worker thread', rows.length, 'rows; start-up', Math.round(t1 - t0), 'ms; parse + rows back', Math.round(t2 - t1), 'ms; longest stretch', maxGap.toFixed(1), 'ms');
}
