import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';

/**
 * `npm run -s record-histories -- DIR`: records a replay history of every workflow type the worker
 * registers, on paths that matter for replay (test/workflows/record-histories.scenarios.ts), from a
 * real stack of its own (PostgreSQL, Temporal dev server, the worker of this checkout). Payloads are
 * written decoded, so the replay test needs no key. Run it on a release's commit and commit the files
 * under test/workflows/histories/<commit>/ (docs/operators/README.md, "Deploying workflow changes").
 */
const dir = process.argv[2];
if (!dir) {
  console.error('usage: npm run -s record-histories -- DIR');
  process.exit(2);
}
const out = path.resolve(dir);
mkdirSync(out, { recursive: true });
const root = path.resolve(import.meta.dirname, '..');
const run = spawnSync(
  process.execPath,
  [
    path.join(root, 'node_modules', 'mocha', 'bin', 'mocha.js'),
    'test/workflows/record-histories.scenarios.ts',
  ],
  { cwd: root, stdio: 'inherit', env: { ...process.env, RECORD_HISTORIES: out } },
);
if (run.status !== 0) process.exit(run.status ?? 1);
// In the repository's own format, so a committed folder passes `npm run lint` as written.
spawnSync(
  process.execPath,
  [path.join(root, 'node_modules', 'prettier', 'bin', 'prettier.cjs'), '--write', out],
  {
    cwd: root,
    stdio: 'ignore',
  },
);
console.log(`${readdirSync(out).filter((f) => f.endsWith('.json')).length} histories in ${out}`);
