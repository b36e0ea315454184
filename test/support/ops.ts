import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { stack, TEST_KEYS } from './stack.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

/** Runs `npm run -s ops -- …` the way an operator would, against this run's database and Temporal. */
export async function ops(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const s = stack();
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'scripts/ops.ts', ...args],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          ...s.databaseEnv,
          TEMPORAL_ADDRESS: s.temporalAddress,
          TEMPORAL_TASK_QUEUE: s.taskQueue,
          // The run's payload key, as an operator's environment carries the deployment's.
          PAYLOAD_ENCRYPTION_KEYS: TEST_KEYS.PAYLOAD_ENCRYPTION_KEYS,
          LOG_LEVEL: 'silent',
        },
      },
    );
    return { code: 0, out: stdout, err: stderr };
  } catch (e) {
    const failure = e as { code: number; stdout: string; stderr: string };
    return { code: failure.code, out: failure.stdout, err: failure.stderr };
  }
}
