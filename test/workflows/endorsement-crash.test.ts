import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { expect } from 'chai';
import { client as http } from '../support/http.js';
import { deletePeriodicSchedules } from '../support/schedules.js';
import { stack, TEST_KEYS } from '../support/stack.js';
import {
  cdBalance,
  createEndorsement,
  decide,
  endorsementRow,
  ledger,
  makeWorld,
  memberRows,
  waitForStatus,
  workflowHandle,
} from './endorsement-support.js';
import { checkCdLedgersAfterEachTest } from '../support/cd-ledger-check.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

/**
 * A worker process on its own task queue: the production entry point, or with a fault the same
 * process with the crash tests' exit-after-commit interceptor (test/support/crash-worker.ts).
 */
function startWorker(
  taskQueue: string,
  faultEnv: Record<string, string> = {},
): ChildProcess & { log: string[] } {
  const entry = faultEnv.TEST_EXIT_AFTER_COMMIT ? 'test/support/crash-worker.ts' : 'worker/main.ts';
  const child = spawn('node', ['--import', 'tsx', entry], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      ...stack().databaseEnv,
      DATABASE_POOL_MAX: '4',
      TEMPORAL_ADDRESS: stack().temporalAddress,
      TEMPORAL_NAMESPACE: stack().config.TEMPORAL_NAMESPACE,
      TEMPORAL_TASK_QUEUE: taskQueue,
      WORKER_METRICS_PORT: '0',
      ...TEST_KEYS,
      ...faultEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  }) as ChildProcess & { log: string[] };
  child.log = [];
  child.stdout!.on('data', (d: Buffer) => child.log.push(d.toString()));
  child.stderr!.on('data', (d: Buffer) => child.log.push(d.toString()));
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

describe('endorsement workflow across a worker crash', () => {
  checkCdLedgersAfterEachTest();
  it('completes once when the worker dies after the approval commits and before it reports', async function () {
    this.timeout(180_000);
    const taskQueue = `crash-${stack().runId}`;
    const api = await stack().startApi({ config: { ...stack().config, TEMPORAL_TASK_QUEUE: taskQueue } });
    const world = await makeWorld({ api: http(api.url), policy: { cdBalance: '10000.00' } });

    // The first worker exits right after applyApproval's transaction commits, once.
    const first = startWorker(taskQueue, { TEST_EXIT_AFTER_COMMIT: 'applyApproval' });
    let second: (ChildProcess & { log: string[] }) | undefined;
    try {
      const id = await createEndorsement(world);
      await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
      // The insurer's call stays open across the crash: a decision that comes after the submit has
      // ended is recorded in the workflow task that also makes the approval's local attempt, so it is
      // answered once a worker completes that task (here the second one).
      const deciding = decide(id, { decision: 'APPROVED', uhid: 'UHID-CRASH' }).then(
        (answer) => answer,
        (err: Error) => err,
      );

      const [code] = (await once(first, 'exit')) as [number | null];
      expect(code, first.log.join('')).to.equal(86);
      // The commit happened; the workflow has not heard of it.
      expect((await endorsementRow(id)).status).to.equal('ENDORSEMENT_STATUS_APPROVED');
      expect((await workflowHandle(id).describe()).status.name).to.equal('RUNNING');

      second = startWorker(taskQueue);
      expect(await deciding).to.include({ result: 'accepted' });
      const state = await workflowHandle(id).result();
      expect(state.status).to.equal('ENDORSEMENT_STATUS_APPROVED');

      const row = await endorsementRow(id);
      expect(row).to.include({
        status: 'ENDORSEMENT_STATUS_APPROVED',
        uhid: 'UHID-CRASH',
        premium_impact: '3650.00',
      });
      expect(await memberRows(world.policy.id)).to.have.length(1);
      expect(await ledger(world.policy.id)).to.deep.equal([
        { endorsement_id: id, amount: '-3650.00', balance_after: '6350.00' },
      ]);
      expect(await cdBalance(world.policy.id)).to.equal('6350.00');
    } finally {
      await stop(first);
      if (second) await stop(second);
      // The children created the namespace's Schedules on their queue; this run needs them no more.
      await deletePeriodicSchedules(stack().temporal);
    }
  });
});
