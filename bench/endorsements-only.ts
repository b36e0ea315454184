import { measure } from './measure.js';
import { endorsementScenarios } from './endorsements.js';
import type { Load } from './run.js';
import { BENCH_SETTINGS, startBenchStack } from './stack.js';

/**
 * `npm run bench:endorsements`: the endorsement rows of `npm run bench -- --quick` (create against
 * its peer and against a bare start, completed per second against the no-op workflow, one in flight) on a stack
 * of their own, in about a minute: for comparing worker settings (BENCH_TUNING) run after run.
 * Prints one line per row; writes nothing.
 */
const PLAN = { rounds: 3, endorsements: 200 };
const load: Load = (spec) => () =>
  measure({ connections: 10, durationSeconds: 1, warmupSeconds: 0.5, ...spec });

const s = await startBenchStack(10_000);
try {
  const rows = await endorsementScenarios(s, load, PLAN);
  const settings = JSON.stringify(BENCH_SETTINGS);
  for (const r of rows) {
    const ours = r.ours.rps.toFixed(1);
    const peer = r.peer.rps.toFixed(1);
    process.stdout.write(
      `${r.scenario}: ours ${ours}/s, ${r.peerName} ${peer}/s, ratio ${r.ratio}, ours p50 ${r.ours.p50.toFixed(0)} ms; ${settings}\n`,
    );
  }
} finally {
  await s.stop();
}
