import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** A process's resident set in MB, from /proc (Linux). */
export async function rssMb(pid: number): Promise<number> {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

/** One `--trace-gc` line of a full collection: `[pid:0xISOLATE] 424 ms: Mark-Compact 61.2 (79.7) -> 51.1 (85.8) MB, ...`. */
const FULL_GC =
  /^\[\d+:(0x[0-9a-f]+)\]\s+\d+ ms: Mark-Compact(?: \(reduce\))? [\d.]+ \([\d.]+\) -> ([\d.]+) \(/;

/**
 * From a process's `--trace-gc` output: per thread (V8 isolate), the heap after its last full
 * collection (live objects, where the RSS also counts garbage and memory the allocator kept), summed
 * over the threads, and how many full collections the output holds.
 */
export function heapsAfterFullGc(trace: string): { mb: number; fullGcs: number } {
  const last = new Map<string, number>();
  let fullGcs = 0;
  for (const line of trace.split('\n')) {
    const m = FULL_GC.exec(line);
    if (!m) continue;
    last.set(m[1]!, Number(m[2]));
    fullGcs++;
  }
  return { mb: Math.round([...last.values()].reduce((a, b) => a + b, 0)), fullGcs };
}

/**
 * Makes the bench stack's worker trace its collections into a file of this run's (bench/stack.ts
 * passes BENCH_WORKER_GC_TRACE on as GC_TRACE_FILE): call before startBenchStack. `heaps()` reads
 * the worker's heaps after their last full collection so far; `remove()` deletes the file.
 */
export function traceWorkerGc(name: string): {
  file: string;
  heaps(): Promise<{ mb: number; fullGcs: number }>;
  remove(): Promise<void>;
} {
  const file = path.join(os.tmpdir(), `${name}-worker-gc-${process.pid}.log`);
  process.env.BENCH_WORKER_GC_TRACE = file;
  return {
    file,
    heaps: async () => heapsAfterFullGc(await fs.readFile(file, 'utf8')),
    remove: () => fs.rm(file, { force: true }),
  };
}
