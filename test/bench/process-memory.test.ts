import fs from 'node:fs/promises';
import { expect } from 'chai';
import { heapsAfterFullGc, traceWorkerGc } from '../../bench/process-memory.js';
import { spawnEntry } from '../../infra/processes.js';

describe('the memory scenarios: heaps after full collections', () => {
  it('reads what a traced process keeps alive, not the garbage it made, from the file named for the worker', async () => {
    const before = process.env.BENCH_WORKER_GC_TRACE;
    const trace = traceWorkerGc('gc-trace-test');
    try {
      // bench/stack.ts hands this variable on to the worker as GC_TRACE_FILE.
      expect(process.env.BENCH_WORKER_GC_TRACE).to.equal(trace.file);
      const child = spawnEntry('test/bench/fixtures/allocate.ts', {
        ...process.env,
        GC_TRACE_FILE: trace.file,
      });
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code).to.equal(0);
      // Its standard output went to the trace file too.
      expect(await fs.readFile(trace.file, 'utf8')).to.contain('kept 600000');
      const heaps = await trace.heaps();
      expect(heaps.fullGcs).to.be.at.least(1);
      // About 40 MB of kept objects (plus the runtime's own) survive; the ~200 MB of churn does not.
      expect(heaps.mb).to.be.within(40, 150);
    } finally {
      await trace.remove();
      if (before === undefined) delete process.env.BENCH_WORKER_GC_TRACE;
      else process.env.BENCH_WORKER_GC_TRACE = before;
    }
    const left = await fs.access(trace.file).then(
      () => true,
      () => false,
    );
    expect(left, 'the trace file is removed').to.equal(false);
  });

  it('sums the last full collection of each thread', () => {
    const trace = [
      '[7:0x1a]   100 ms: Mark-Compact 90.0 (99.0) -> 50.0 (95.0) MB, 20.1 / 0.0 ms  (reason)',
      '[7:0x2b]   150 ms: Scavenge 30.0 (40.0) -> 25.0 (40.0) MB, 1.0 / 0.0 ms',
      '[7:0x2b]   160 ms: Mark-Compact (reduce) 60.0 (70.0) -> 30.5 (60.0) MB, 10.0 / 0.0 ms',
      '[7:0x1a]   300 ms: Mark-Compact 80.0 (99.0) -> 45.0 (95.0) MB, 20.1 / 0.0 ms  (reason)',
      '{"level":40,"msg":"a log line in between"}',
    ].join('\n');
    expect(heapsAfterFullGc(trace)).to.deep.equal({ mb: 76, fullGcs: 3 });
  });
});
