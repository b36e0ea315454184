import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { loadHistory } from '../test/support/record-history.js';
import { WORKFLOWS_PATH } from '../worker/create-worker.js';
import { median } from './measure.js';

/**
 * `node --import tsx bench/replay.ts OLD NEW [FILE]`: what a workflow's replay costs the worker (a
 * decision for an endorsement the workflow cache has let go replays its history first), for the same
 * path recorded by two releases (test/workflows/histories/OLD/FILE and NEW/FILE, FILE by default
 * endorsement-file-approved.json), both replayed by today's workflow code: BENCH_REPLAY_RUNS copies of
 * each (1,000) one after the other, alternating, five rounds, after a warm-up. Prints milliseconds a
 * history, each round and the medians; writes nothing. docs/performance.md quotes it.
 */
const [older, newer, file = 'endorsement-file-approved.json'] = process.argv.slice(2);
if (!older || !newer) {
  console.error(
    'usage: node --import tsx bench/replay.ts OLD NEW [FILE] (release folders under test/workflows/histories)',
  );
  process.exit(2);
}
const RUNS = Number(process.env.BENCH_REPLAY_RUNS ?? 1_000);
const ROUNDS = 5;
const dir = path.resolve(import.meta.dirname, '..', 'test', 'workflows', 'histories');
const histories = {
  [older]: loadHistory(path.join(dir, older, file)),
  [newer]: loadHistory(path.join(dir, newer, file)),
};
// A replay worker per round says it started and stopped: only warnings and errors are printed.
Runtime.install({ logger: new DefaultLogger('WARN') });
const silent = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };
// Bundled once, as a worker does at start: the rounds time the replays, not the bundler.
const workflowBundle = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: silent });

/** Milliseconds a history, replaying `runs` copies of the release's one. */
async function replay(release: string, runs: number): Promise<number> {
  const copies = Array.from({ length: runs }, (_, i) => ({
    workflowId: `${release}-${i}`,
    history: histories[release]!,
  }));
  const started = performance.now();
  for await (const result of Worker.runReplayHistories({ workflowBundle }, copies))
    if (result.error) throw new Error(`${release}/${file} no longer replays: ${result.error.message}`);
  return (performance.now() - started) / runs;
}

await replay(older, 50);
await replay(newer, 50);
const times: Record<string, number[]> = { [older]: [], [newer]: [] };
for (let round = 1; round <= ROUNDS; round++) {
  for (const release of [older, newer]) times[release]!.push(await replay(release, RUNS));
  process.stdout.write(
    `round ${round}: ${older} ${times[older]!.at(-1)!.toFixed(2)} ms, ${newer} ${times[newer]!.at(-1)!.toFixed(2)} ms a history\n`,
  );
}
const [a, b] = [median(times[older]!), median(times[newer]!)];
process.stdout.write(
  `${file}, ${RUNS} replays a round, medians: ${older} ${a.toFixed(2)} ms, ${newer} ${b.toFixed(2)} ms (${(b / a).toFixed(2)}x)\n`,
);
process.exit(0);
