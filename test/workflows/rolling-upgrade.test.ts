import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode, NativeConnection, type Worker } from '@temporalio/worker';
import { expect } from 'chai';
import { systemClock } from '../../domain/clock.js';
import { createLogger } from '../../infra/logger.js';
import { flushInsurer } from '../../usecases/insurer-exchange/cut-off.js';
import { createWorker, type WorkerDeps } from '../../worker/create-worker.js';
import {
  CD_HOLD,
  FILE_INSURER_CUT_OFF,
  FILE_INSURER_WITHDRAWAL,
  REVIEW_HOLD_AND_ROUTE,
  SLA_WATCH_TOLD,
} from '../../workflows/endorsement/patches.js';
import { makeEmployee, sql } from '../support/factories.js';
import { sentFileInsurerEndorsements, type FileInsurerEndorsements } from '../support/file-insurer.js';
import { stack } from '../support/stack.js';
import {
  createEndorsement,
  decide,
  endorsementApi,
  waitFor,
  workflowHandle,
  workflowState,
} from './endorsement-support.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
/**
 * The last released commit: the workflow code running in production before this change ships. Its
 * endorsement workflow records every patch marker with `patched()`; today's calls `deprecatePatch()`.
 */
const RELEASED = 'ada53c6';
const SENT = 'ENDORSEMENT_STATUS_SENT_TO_INSURER';

/**
 * The released commit's workflow code, bundled as its worker bundled it. The commit is materialized
 * with `git archive` into a temporary folder (nothing of this checkout changes) whose node_modules is
 * this checkout's: the SDK and the libraries are the same at both commits, only our code differs.
 * CI runs on a full clone; a shallow one lacks the commit and fails here with one line.
 */
async function releasedWorkflowBundle(): Promise<{ code: string }> {
  try {
    execFileSync('git', ['cat-file', '-e', `${RELEASED}^{commit}`], { cwd: ROOT, stdio: 'ignore' });
  } catch {
    throw new Error(
      `commit ${RELEASED} (last released workflow code) is not in this clone: git fetch --unshallow`,
    );
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), `ghi-release-${RELEASED}-`));
  try {
    execFileSync('sh', ['-c', `git archive ${RELEASED} | tar -x -C "${dir}"`], { cwd: ROOT });
    symlinkSync(realpathSync(path.join(ROOT, 'node_modules')), path.join(dir, 'node_modules'), 'dir');
    const { code } = await bundleWorkflowCode({
      workflowsPath: path.join(dir, 'workflows', 'index.ts'),
      logger: {
        log: () => undefined,
        trace: () => undefined,
        debug: () => undefined,
        info: () => undefined,
        warn: () => undefined,
        error: () => undefined,
      },
    });
    return { code };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The patch marker of `patchId` in the run's history (it took the patched path): `deprecated` false
 * when `patched()` recorded it, true when `deprecatePatch()` did; null without one.
 */
async function patchMarker(endorsementId: string, patchId: string): Promise<{ deprecated: boolean } | null> {
  const history = await workflowHandle(endorsementId).fetchHistory();
  for (const e of history.events ?? []) {
    const data = e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0]?.data;
    if (!data) continue;
    const marker = JSON.parse(Buffer.from(data).toString('utf8')) as { id: string; deprecated: boolean };
    if (marker.id === patchId) return { deprecated: marker.deprecated };
  }
  return null;
}

/**
 * A deploy that retires patches while endorsements wait for their insurer: workflows started by the
 * released worker (commit ada53c6's workflow code, every patch behind `patched()`) continue on a
 * worker with today's code (each of those patches a `deprecatePatch()`, the old branches deleted;
 * REVIEW_HOLD_AND_ROUTE, newer, behind `patched()`) after it replaces the released one, and finish as
 * they would have: the markers the released code recorded replay, the new code records its own as
 * deprecated, and the runs already past their review keep the review's old branch. Both workers poll
 * a task queue of this test's own, so the run's shared worker never takes a task.
 */
describe("rolling upgrade: the released workflow code replaced by today's mid-flight", function () {
  this.timeout(300_000);
  let queue = '';
  let connection: NativeConnection;
  let worker: { worker: Worker; running: Promise<void> } | null = null;

  const startWorker = async (workflowBundle?: { code: string }) => {
    const s = stack();
    const deps: WorkerDeps = {
      config: { ...s.config, TEMPORAL_TASK_QUEUE: queue },
      orm: s.serviceOrm,
      clock: systemClock,
      logger: createLogger('silent'),
      temporal: s.temporal,
      adapters: s.adapters,
      connection,
      namespace: s.config.TEMPORAL_NAMESPACE,
      taskQueue: queue,
      workflowBundle,
    };
    const w = await createWorker(deps);
    worker = { worker: w, running: w.run() };
  };
  const stopWorker = async () => {
    if (!worker) return;
    worker.worker.shutdown();
    await worker.running;
    worker = null;
  };

  before(async () => {
    queue = `${stack().taskQueue}-upgrade`;
    connection = await NativeConnection.connect({ address: stack().temporalAddress });
  });
  after(async () => {
    await stopWorker();
    await connection.close();
  });

  it('50 endorsements waiting on the released worker all finish on the new one, as new ones do', async () => {
    const released = await releasedWorkflowBundle();
    await startWorker(released);
    const api = await endorsementApi({ config: { ...stack().config, TEMPORAL_TASK_QUEUE: queue } });
    // 53 additions delivered to a file insurer by a cut-off the released worker ran.
    const world: FileInsurerEndorsements = await sentFileInsurerEndorsements({
      count: 53,
      api,
      taskQueue: queue,
    });
    const ids = world.endorsements.map((e) => e.id);
    const control = ids.slice(50);
    const waiting = ids.slice(0, 50);
    const cancel = async (id: string) => {
      const res = await world.api.post(`/v1/policy/endorsements/${id}/cancel`, { token: world.token });
      expect(res.status, res.text).to.equal(200);
    };
    const withdrawalQueued = async (list: string[]) =>
      (
        await sql(
          'select id from endorsements where id in (?) and withdrawal_queued_at is not null order by id',
          [list],
        )
      ).map((r) => r.id as string);

    // Control: cancels the released worker runs queue the file insurer's withdrawal (patched()).
    for (const id of control) await cancel(id);
    for (const id of control) await workflowHandle(id).result();
    expect(await withdrawalQueued(control)).to.deep.equal([...control].sort());
    expect(await patchMarker(control[0]!, FILE_INSURER_WITHDRAWAL)).to.deep.equal({ deprecated: false });

    // The deploy: the released worker stops, today's takes the queue (and replays every history).
    await stopWorker();
    await startWorker();

    const approved = waiting.slice(0, 25);
    const cancelled = waiting.slice(25);
    for (const id of approved)
      expect(await decide(id, { decision: 'APPROVED', uhid: `UH-${id}` })).to.include({ result: 'accepted' });
    for (const id of cancelled) await cancel(id);
    const results = await Promise.all(waiting.map((id) => workflowHandle(id).result()));
    expect(results.map((r) => r.status)).to.deep.equal([
      ...approved.map(() => 'ENDORSEMENT_STATUS_APPROVED'),
      ...cancelled.map(() => 'ENDORSEMENT_STATUS_CANCELLED'),
    ]);
    const rows = await sql('select id, status, uhid from endorsements where id in (?) order by id', [
      waiting,
    ]);
    for (const row of rows) {
      const isApproved = approved.includes(row.id as string);
      expect(row).to.deep.equal({
        id: row.id,
        status: isApproved ? 'ENDORSEMENT_STATUS_APPROVED' : 'ENDORSEMENT_STATUS_CANCELLED',
        uhid: isApproved ? `UH-${row.id}` : null,
      });
    }
    // Each approval enrolled the employee once.
    const [members] = await sql('select count(*)::int as n from policy_members where endorsement_id in (?)', [
      approved,
    ]);
    expect(members.n).to.be.at.least(25);
    // The cancels the new worker ran queued the withdrawal as the released code did: the markers the
    // released code recorded replayed, and the new code recorded its own as deprecated.
    expect(await withdrawalQueued(cancelled)).to.deep.equal([...cancelled].sort());
    expect(await patchMarker(cancelled[0]!, CD_HOLD)).to.deep.equal({ deprecated: false });
    expect(await patchMarker(cancelled[0]!, FILE_INSURER_WITHDRAWAL)).to.deep.equal({ deprecated: true });
    expect(await patchMarker(approved[0]!, FILE_INSURER_WITHDRAWAL)).to.equal(null);

    // New endorsements, started on today's worker, take the same path from the start.
    const fresh: string[] = [];
    for (let i = 0; i < 3; i++) {
      const employee = await makeEmployee(world.client.clientId);
      fresh.push(await createEndorsement({ ...world, employee }));
    }
    await waitFor(
      async () =>
        (
          await sql(
            'select count(*)::int as n from endorsements where id in (?) and cut_off_queued_at is not null',
            [fresh],
          )
        )[0].n as number,
      (n) => n === fresh.length,
      'the new endorsements queued for the cut-off',
    );
    const s = stack();
    const flush = () =>
      flushInsurer({ em: s.orm.em.fork(), temporal: s.temporal, taskQueue: queue }, world.code, new Date());
    const delivered = await flush();
    expect(delivered.sent).to.equal(3);
    expect([...delivered.withdrawn].sort()).to.deep.equal([...control, ...cancelled].sort());
    for (const id of fresh)
      await waitFor(
        () => workflowState(id),
        (st) => st.status === SENT,
        `${id} submitted`,
      );
    for (const id of fresh) await cancel(id);
    for (const id of fresh) await workflowHandle(id).result();
    expect(await withdrawalQueued(fresh)).to.deep.equal([...fresh].sort());
    // Started on today's code: reviewed, held and routed in one call (REVIEW_HOLD_AND_ROUTE, recorded by
    // patched(), where the runs reviewed on the released code have none), so the routing's own step and
    // its marker never ran; every other marker it passed recorded by deprecatePatch().
    expect(await patchMarker(fresh[0]!, REVIEW_HOLD_AND_ROUTE)).to.deep.equal({ deprecated: false });
    expect(await patchMarker(approved[0]!, REVIEW_HOLD_AND_ROUTE)).to.equal(null);
    expect(await patchMarker(fresh[0]!, FILE_INSURER_CUT_OFF)).to.equal(null);
    expect(await patchMarker(fresh[0]!, FILE_INSURER_WITHDRAWAL)).to.deep.equal({ deprecated: true });
    // Delivered by today's cut-off: the SLA watch started from its signal (SLA_WATCH_TOLD, recorded by
    // patched()). The runs the released code watched read it by a local activity, and replay that on
    // today's worker although their signal carried it too (today's activities sent it).
    expect(await patchMarker(fresh[0]!, SLA_WATCH_TOLD)).to.deep.equal({ deprecated: false });
    expect(await patchMarker(approved[0]!, SLA_WATCH_TOLD)).to.equal(null);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect([...(await flush()).withdrawn].sort()).to.deep.equal([...fresh].sort());
  });
});
