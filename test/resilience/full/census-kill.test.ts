import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { makeClient, makePolicy, sql } from '../../support/factories.js';
import { client as http } from '../../support/http.js';
import { stack } from '../../support/stack.js';
import { kill9, ownTarget, startWorker, stopChildren, type Child } from '../support/children.js';
import { report } from '../support/report.js';

const ROWS = 2_000;

const outcomeCounts = async (batchId: string) =>
  (
    await sql(
      `select count(*) filter (where outcome = 'APPLIED')::int as applied,
              count(*) filter (where outcome is null)::int as pending
         from census_batch_rows where batch_id = ?`,
      [batchId],
    )
  )[0] as { applied: number; pending: number };

/**
 * D16, worker killed during a census: a 2,000-row census of new joiners is committed and its
 * worker (worker/main.ts as a child) is SIGKILLed twice while the rows are being applied, a new
 * one starting after each kill. Pass: every row applied exactly once: one employee and one
 * endorsement per row, each row's outcome naming its own endorsement, every endorsement's workflow
 * started with the batch's BatchId.
 */
describe('resilience: worker SIGKILLed during a 2,000-row census batch', () => {
  after(() => stopChildren());

  it('applies every row exactly once', async function () {
    this.timeout(1_800_000);
    const taskQueue = `census-kill-${stack().runId}`;
    const target = ownTarget(taskQueue);
    const api = http(
      (await stack().startApi({ config: { ...stack().config, TEMPORAL_TASK_QUEUE: taskQueue } })).url,
    );
    const client = await makeClient();
    const policy = await makePolicy(client.clientId, { cdBalance: '100000000.00' });
    const tag = client.clientId.slice(-6);
    const rows = Array.from({ length: ROWS }, (_, i) => ({
      employee_code: `K${i}-${tag}`,
      name: `Joiner ${i}`,
      email: `k${i}.${tag}@example.com`,
      phone: '+919811111111',
      date_of_birth: '1990-01-01',
      gender: 'male',
      action: 'add',
      effective_date: '2026-12-01',
      policy_id: policy.id,
    }));
    let worker: Child = await startWorker(target);
    const res = await api.post('/v1/policy/endorsements/batches', { token: client.token(), body: { rows } });
    expect(res.status, res.text).to.equal(202);
    const batchId = res.body.payload.batch_id as string;

    const appliedAtKill: number[] = [];
    for (const threshold of [ROWS / 5, ROWS / 2]) {
      for (const deadline = Date.now() + 300_000; (await outcomeCounts(batchId)).applied < threshold;) {
        if (Date.now() > deadline) throw new Error(`fewer than ${threshold} rows applied`);
        await sleep(100);
      }
      appliedAtKill.push((await outcomeCounts(batchId)).applied);
      await kill9(worker);
      worker = await startWorker(target);
    }
    for (const deadline = Date.now() + 600_000; ; await sleep(500)) {
      const [b] = await sql('select status from census_batches where id = ?', [batchId]);
      if (b.status === 'BATCH_STATUS_COMPLETED') break;
      if (Date.now() > deadline) throw new Error('the batch did not complete');
    }

    const [figures] = await sql(
      `select (select count(*)::int from employees where client_id = ?) as employees,
              (select count(*)::int from endorsements where client_id = ?) as endorsements,
              (select count(distinct employee_id)::int from endorsements where client_id = ?) as endorsed,
              (select count(*)::int from census_batch_rows r join endorsements e on e.id = r.endorsement_id
                 where r.batch_id = ? and r.outcome = 'APPLIED' and e.employee_id = r.employee_id) as linked,
              (select count(*)::int from endorsements where client_id = ? and workflow_started_at is null) as unstarted`,
      [client.clientId, client.clientId, client.clientId, batchId, client.clientId],
    );
    const withBatchId = async () => (await stack().temporal.workflow.count(`BatchId = '${batchId}'`)).count;
    let started = await withBatchId();
    for (
      const deadline = Date.now() + 60_000;
      started < ROWS + 1 && Date.now() < deadline;
      await sleep(500)
    ) {
      started = await withBatchId();
    }
    report('census worker SIGKILL', {
      rows: ROWS,
      kills: 2,
      appliedAtKill,
      ...figures,
      workflowsWithBatchId: started,
    });
    expect(figures).to.deep.equal({
      employees: ROWS,
      endorsements: ROWS,
      endorsed: ROWS,
      linked: ROWS,
      unstarted: 0,
    });
    expect(await outcomeCounts(batchId)).to.deep.equal({ applied: ROWS, pending: 0 });
    // The batch's own workflow and one endorsement workflow per row.
    expect(started).to.equal(ROWS + 1);
  });
});
