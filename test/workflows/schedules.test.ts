import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { promisify } from 'node:util';
import { WorkflowFailedError } from '@temporalio/client';
import { expect } from 'chai';
import { resolveTemporalCli } from '../../infra/temporal.js';
import { ensurePeriodicSchedules } from '../../usecases/schedules.js';
import { ENDORSEMENT_RECONCILE_PASS, PERIODIC_SCHEDULES } from '../../workflows/periodic/contract.js';
import { INSURER_INBOX_SCHEDULE_ID } from '../../workflows/insurer-inbox/contract.js';
import { deletePeriodicSchedules } from '../support/schedules.js';
import { stack, TEST_KEYS } from '../support/stack.js';
import { waitFor } from './endorsement-support.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const DAY = 24 * 3_600_000;
const IDS = [...PERIODIC_SCHEDULES.map((s) => s.scheduleId), INSURER_INBOX_SCHEDULE_ID].sort();

/** File insurers' cut-off and policies' roster Schedules depend on the run's data: other tests check them. */
const periodic = (id: string) => !id.startsWith('insurer-cut-off-') && !id.startsWith('roster-reconcile-');

/** Schedule ids as `client.schedule.list` reports them (a duplicate would be listed twice). */
async function listed(): Promise<string[]> {
  const ids: string[] = [];
  for await (const s of stack().temporal.schedule.list()) ids.push(s.scheduleId);
  return ids.filter(periodic).sort();
}

/** The task queue each Schedule's runs start on. */
const queues = () =>
  Promise.all(
    IDS.map(async (id) => (await stack().temporal.schedule.getHandle(id).describe()).action.taskQueue),
  );

/** `temporal schedule list` as an operator runs it against this run's server. */
async function cliScheduleIds(): Promise<string[]> {
  const cli = await resolveTemporalCli(process.env.TEMPORAL_CLI_PATH);
  const { stdout } = await promisify(execFile)(cli, [
    'schedule',
    'list',
    '--address',
    stack().temporalAddress,
    '--namespace',
    stack().config.TEMPORAL_NAMESPACE,
    '--output',
    'json',
  ]);
  const rows = JSON.parse(stdout) as { scheduleId: string }[];
  return rows
    .map((r) => r.scheduleId)
    .filter(periodic)
    .sort();
}

/** The production worker entry point as a child process on its own task queue. */
function startWorker(taskQueue: string): ChildProcess & { log: string[] } {
  const child = spawn('node', ['--import', 'tsx', 'worker/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      ...stack().databaseEnv,
      DATABASE_POOL_MAX: '2',
      TEMPORAL_ADDRESS: stack().temporalAddress,
      TEMPORAL_NAMESPACE: stack().config.TEMPORAL_NAMESPACE,
      TEMPORAL_TASK_QUEUE: taskQueue,
      WORKER_METRICS_PORT: '0',
      ...TEST_KEYS,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  }) as ChildProcess & { log: string[] };
  child.log = [];
  child.stdout!.on('data', (d: Buffer) => child.log.push(d.toString()));
  child.stderr!.on('data', (d: Buffer) => child.log.push(d.toString()));
  return child;
}

describe('periodic work as Temporal Schedules', function () {
  this.timeout(90_000);
  afterEach(() => deletePeriodicSchedules(stack().temporal));

  it('a worker creates the five Schedules at start (the inbox poll too); `temporal schedule list` shows them', async () => {
    await deletePeriodicSchedules(stack().temporal);
    const taskQueue = `schedules-${stack().runId}`;
    const worker = startWorker(taskQueue);
    try {
      const ids = await waitFor(
        () => listed(),
        (r) => r.length === IDS.length,
        'every schedule after the worker started',
      );
      expect(ids).to.deep.equal(IDS);
      expect(await queues()).to.deep.equal(IDS.map(() => taskQueue));
      expect(await cliScheduleIds()).to.deep.equal(IDS);
    } finally {
      const exited = once(worker, 'exit');
      worker.kill('SIGTERM');
      await exited;
    }
  });

  it('creating again keeps one of each, on the new queue, and a paused Schedule stays paused', async () => {
    const { temporal, taskQueue } = stack();
    await ensurePeriodicSchedules(temporal, 'elsewhere');
    await temporal.schedule.getHandle('webhook-sweeper').pause('operator holds the sweeper');
    await ensurePeriodicSchedules(temporal, taskQueue);
    await ensurePeriodicSchedules(temporal, taskQueue);

    expect(await queues()).to.deep.equal(IDS.map(() => taskQueue));
    // Listing is eventually consistent: wait for all of them, then make sure no extra one shows up.
    await waitFor(
      () => listed(),
      (r) => r.length >= IDS.length,
      'the schedules listed',
    );
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await listed()).to.deep.equal(IDS);
    const sweeper = await temporal.schedule.getHandle('webhook-sweeper').describe();
    expect(sweeper.state).to.include({ paused: true, note: 'operator holds the sweeper' });
    const reconciler = await temporal.schedule.getHandle('endorsement-reconciler').describe();
    expect(reconciler.state.paused).to.equal(false);
    expect(reconciler.action).to.include({ workflowType: 'endorsementReconcilePassWorkflow', taskQueue });
    expect(reconciler.spec.intervals?.map((i) => i.every)).to.deep.equal([300_000]);
    const sweeper10 = await temporal.schedule.getHandle('webhook-sweeper').describe();
    expect(sweeper10.spec.intervals?.map((i) => i.every)).to.deep.equal([600_000]);
    const coverEnd = await temporal.schedule.getHandle('member-cover-end').describe();
    expect(coverEnd.action).to.include({ workflowType: 'memberCoverEndPassWorkflow', taskQueue });
    expect(coverEnd.spec.timezone).to.equal('Asia/Kolkata');
    expect(coverEnd.spec.calendars?.map((c) => [c.hour, c.minute])).to.deep.equal([
      [[{ start: 0, end: 0, step: 1 }], [{ start: 5, end: 5, step: 1 }]],
    ]);
    const inbox = await temporal.schedule.getHandle(INSURER_INBOX_SCHEDULE_ID).describe();
    expect(inbox.action).to.include({ workflowType: 'insurerInboxPassWorkflow', taskQueue });
    expect(inbox.spec.intervals?.map((i) => i.every)).to.deep.equal([300_000]);
  });

  it('an idle namespace starts at most six maintenance runs in any ten minutes (the Schedules’ own next times)', async () => {
    const { temporal, taskQueue } = stack();
    await ensurePeriodicSchedules(temporal, taskQueue);
    // Temporal's own answer to "what will this Schedule start next", for every maintenance Schedule
    // (the inbox poll is insurer exchange, not maintenance). Daily passes are counted over a day, so
    // the window that holds one of them is among the windows tried.
    const times: number[] = [];
    for (const s of PERIODIC_SCHEDULES) {
      const d = await temporal.schedule.getHandle(s.scheduleId).describe();
      expect(d.info.nextActionTimes.length, s.scheduleId).to.be.greaterThan(0);
      if (s.daily) {
        const [hour, minute] = [s.daily.hour, s.daily.minute];
        expect(d.spec.calendars?.[0]?.hour?.[0]?.start).to.equal(hour);
        expect(d.spec.calendars?.[0]?.minute?.[0]?.start).to.equal(minute);
      }
      const every = d.spec.intervals?.[0]?.every;
      const first = d.info.nextActionTimes[0]!.getTime();
      // Next times over the coming day: an interval's from its spec, a daily one's from Temporal.
      if (typeof every === 'number') for (let t = first; t < first + DAY; t += every) times.push(t);
      else times.push(first);
    }
    times.sort((a, b) => a - b);
    const start = times[0]!;
    let most = 0;
    for (let from = start; from < start + DAY; from += 60_000) {
      most = Math.max(most, times.filter((t) => t >= from && t < from + 10 * 60_000).length);
    }
    expect(most).to.be.at.most(6);
  });

  it('a pass that fails fails its run (after three attempts) instead of passing quietly', async () => {
    const { temporal, taskQueue } = stack();
    // An input the pass's statement cannot use stands in for a database that refuses the pass.
    const run = temporal.workflow.execute(ENDORSEMENT_RECONCILE_PASS, {
      taskQueue,
      workflowId: `endorsement-reconciler-pass-failing-${stack().runId}`,
      args: [{ graceMs: 'soon' as unknown as number }],
    });
    const failure = await run.then(
      () => null,
      (err: unknown) => err,
    );
    expect(failure).to.be.instanceOf(WorkflowFailedError);
    const handle = temporal.workflow.getHandle(`endorsement-reconciler-pass-failing-${stack().runId}`);
    expect((await handle.describe()).status.name).to.equal('FAILED');
  });
});
