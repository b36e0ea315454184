import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { LoadSpec, LoadSummary } from './load.js';

const LOAD_SCRIPT = path.resolve(import.meta.dirname, 'load.ts');

/** One load run in its own process (autocannon), so the generator never competes inside the server. */
export async function measure(spec: LoadSpec): Promise<LoadSummary> {
  // Bodies can be large (bulk updates): the spec travels as a file, not on the command line.
  // A name of its own: two measurements started in the same millisecond (one per API copy) would
  // otherwise share one file, and both send the second one's requests.
  const file = path.join(os.tmpdir(), `ghi-load-${process.pid}-${randomUUID()}.json`);
  await fs.writeFile(file, JSON.stringify(spec));
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', LOAD_SCRIPT, file], {
      maxBuffer: 16 * 1024 * 1024,
    });
    return JSON.parse(stdout) as LoadSummary;
  } finally {
    await fs.rm(file, { force: true });
  }
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export interface Figures {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

/** Median of each figure over the rounds. */
export function medianOf(runs: LoadSummary[]): Figures {
  return {
    rps: median(runs.map((r) => r.rps)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    non2xx: runs.reduce((n, r) => n + r.non2xx + r.errors, 0),
  };
}

/**
 * Runs ours and the peer alternately, the pair's order swapped each round (ours, peer, peer, ours …),
 * and returns the medians: a process's first round after the warm-up costs it more CPU (15–25 %
 * for the API), and whichever went first in every round would pay it every time.
 */
export async function compare(
  rounds: number,
  ours: () => Promise<LoadSummary>,
  peer: () => Promise<LoadSummary>,
): Promise<{ ours: Figures; peer: Figures }> {
  const a: LoadSummary[] = [];
  const b: LoadSummary[] = [];
  for (let i = 0; i < rounds; i++) {
    if (i % 2 === 0) {
      a.push(await ours());
      b.push(await peer());
    } else {
      b.push(await peer());
      a.push(await ours());
    }
  }
  return { ours: medianOf(a), peer: medianOf(b) };
}
