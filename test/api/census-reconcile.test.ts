import { expect } from 'chai';
import { insertCensusBatch } from '../../data/census/batches.js';
import { TenantScope } from '../../data/scope.js';
import { systemClock, today } from '../../domain/clock.js';
import { newId } from '../../domain/ids.js';
import { planCensus } from '../../usecases/census/census.js';
import { createEndorsement } from '../../usecases/endorsements/endorsements.js';
import { endorsementWorkflowId } from '../../workflows/endorsement/contract.js';
import { BatchId } from '../../workflows/search-attributes.js';
import { censusBatchWorkflowId } from '../../workflows/census-batch/contract.js';
import { census, censusCsv, CSV, newJoiner, type Census } from '../support/census.js';
import { checkCdLedgersAfterEachTest } from '../support/cd-ledger-check.js';
import { sql } from '../support/factories.js';
import { deletePeriodicSchedules, triggerPass } from '../support/schedules.js';
import { stack } from '../support/stack.js';
import { waitFor } from '../workflows/endorsement-support.js';

const PATH = '/v1/policy/endorsements/batches';

const startedAt = async (batchId: string) =>
  (await sql('select workflow_started_at from census_batches where id = ?', [batchId]))[0]
    ?.workflow_started_at;

const getBatch = (w: Census, id: string) => w.api.get(`${PATH}/${id}`, { token: w.token });

/** A census committed as commitCensus stores it (plan, RUNNING batch, staged rows) by a process that died before the start. */
async function committedWithoutStart(w: Census): Promise<string> {
  const scope = TenantScope.of(stack().orm.em.fork(), w.clientId);
  const rows = [
    newJoiner(`R1-${w.clientId.slice(-6)}`),
    { employee_code: w.uncovered.employeeCode, action: 'add', effective_date: '2026-12-01' },
  ];
  const plan = await planCensus(scope, { kind: 'json', rows }, today(systemClock));
  const batchId = newId('batch');
  await insertCensusBatch(scope, { id: batchId, totals: plan.totals, actorTokenId: null }, plan.staged);
  return batchId;
}

describe('census batches whose workflow start was lost (endorsement reconciler)', () => {
  checkCdLedgersAfterEachTest();

  it('a commit records its workflow start', async () => {
    const w = await census();
    const res = await w.api.post(PATH, {
      token: w.token,
      rawBody: censusCsv([newJoiner(`C1-${w.clientId.slice(-6)}`)]),
      headers: { 'content-type': CSV },
    });
    expect(res.status, res.text).to.equal(202);
    expect(await startedAt(res.body.payload.batch_id)).to.not.equal(null);
    await waitFor(
      () => getBatch(w, res.body.payload.batch_id),
      (r) => r.body.payload?.batch.status === 'BATCH_STATUS_COMPLETED',
      'the batch to complete',
    );
  });

  it('a run of the reconciler’s Schedule starts a RUNNING batch left without a start, and it completes', async () => {
    const w = await census();
    const batchId = await committedWithoutStart(w);
    const stuck = await getBatch(w, batchId);
    expect(stuck.body.payload.batch).to.include({ status: 'BATCH_STATUS_RUNNING' });
    expect(stuck.body.payload.batch.counts).to.deep.equal({ pending: 2, applied: 0, failed: 0, invalid: 0 });
    expect(await startedAt(batchId)).to.equal(null);

    await triggerPass(stack().temporal, stack().taskQueue, 'endorsement-reconciler');
    try {
      const done = await waitFor(
        () => getBatch(w, batchId),
        (r) => r.body.payload?.batch.status === 'BATCH_STATUS_COMPLETED',
        'the reconciled batch to complete',
      );
      const { batch, rows } = done.body.payload;
      expect(batch.counts).to.deep.equal({ pending: 0, applied: 2, failed: 0, invalid: 0 });
      expect(rows.map((r: any) => r.outcome)).to.deep.equal(['APPLIED', 'APPLIED']);
      expect(rows.every((r: any) => typeof r.endorsement_id === 'string')).to.equal(true);
      expect(await startedAt(batchId)).to.not.equal(null);
      // The batch's own workflow did it (the batch completes in its last activity, then the run).
      const handle = stack().temporal.workflow.getHandle(censusBatchWorkflowId(batchId));
      await waitFor(
        () => handle.describe().then((d) => d.status.name),
        (status) => status === 'COMPLETED',
        'the batch workflow to complete',
      );
    } finally {
      await deletePeriodicSchedules(stack().temporal);
    }
  });

  it('an endorsement a batch row made but whose chunk did not start it is started by the reconciler with its BatchId', async () => {
    const w = await census();
    const batchId = await committedWithoutStart(w);
    const scope = TenantScope.of(stack().orm.em.fork(), w.clientId);
    // As the row's transaction made it, before the chunk's starts (a chunk late or killed there).
    const made = await scope.transaction((tx) =>
      createEndorsement(
        tx,
        {
          employeeId: w.uncovered.id,
          policyId: w.policyId,
          type: 'ENDORSEMENT_TYPE_ADDITION',
          coverageStartDate: '2026-12-01',
          coverageEndDate: '2027-03-01',
        },
        { tokenId: null, batchId },
        today(systemClock),
      ),
    );
    await triggerPass(stack().temporal, stack().taskQueue, 'endorsement-reconciler');
    try {
      const handle = stack().temporal.workflow.getHandle(endorsementWorkflowId(made.id));
      const described = await waitFor(
        () => handle.describe().catch(() => null),
        (d) => d !== null,
        'the reconciler to start the endorsement',
      );
      expect(described!.typedSearchAttributes.get(BatchId)).to.equal(batchId);
    } finally {
      await deletePeriodicSchedules(stack().temporal);
    }
  });
});
