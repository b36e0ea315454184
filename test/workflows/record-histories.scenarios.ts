import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { addWebhook } from '../../usecases/webhooks/endpoints.js';
import { createSimulatedAdapter } from '../../adapters/simulated.js';
import { SystemScope } from '../../data/scope.js';
import { topUpCd, wakeFundedEndorsements } from '../../usecases/cd-account/account.js';
import { ROSTER_FIELDS } from '../../domain/reconciliation/roster-file.js';
import { reconcileRosterFile } from '../../usecases/reconciliation/roster.js';
import { flushInsurer } from '../../usecases/insurer-exchange/cut-off.js';
import { simulatedInsurerWorkflowId } from '../../workflows/endorsement/contract.js';
import { cutOffWorkflowId } from '../../workflows/insurer-cut-off/contract.js';
import { INSURER_INBOX_PASS } from '../../workflows/insurer-inbox/contract.js';
import { PERIODIC_SCHEDULES } from '../../workflows/periodic/contract.js';
import { reconciliationWorkflowId } from '../../workflows/roster-reconciliation/contract.js';
import { AwaitingFunds } from '../../workflows/search-attributes.js';
import { SMOKE_WORKFLOW } from '../../workflows/smoke/contract.js';
import { webhookWorkflowId } from '../../workflows/webhook/contract.js';
import { makeEmployee, sql } from '../support/factories.js';
import { sentFileInsurerEndorsements } from '../support/file-insurer.js';
import { recordHistory } from '../support/record-history.js';
import { stack } from '../support/stack.js';
import { startReceiver } from '../support/webhook-receiver.js';
import {
  createEndorsement,
  decide,
  makeWorld,
  waitFor,
  waitForStatus,
  workflowHandle,
  workflowState,
} from './endorsement-support.js';
import { grant, grantHandle, grantWorld, waitForEndorsements } from './grant-support.js';
import { census, censusCsv, CSV, newJoiner } from '../support/census.js';
import { censusBatchWorkflowId } from '../../workflows/census-batch/contract.js';
import { TenantScope } from '../../data/scope.js';
import { createLogger } from '../../infra/logger.js';
import { decidePolicyRenewal, startPolicyRenewal } from '../../usecases/policy-year/renewals.js';
import { RENEWAL_PASS } from '../../workflows/periodic/contract.js';
import { makeMember } from '../support/factories.js';

/**
 * Not part of `npm test` (not a `.test.ts` file): `npm run -s record-histories -- DIR` runs it with
 * RECORD_HISTORIES=DIR on the real stack and writes one history per path below, for every workflow
 * type the worker registers (workflows/index.ts). test/workflows/replay.test.ts replays what is
 * committed under test/workflows/histories and fails when a registered type has none.
 */
const SENT = 'ENDORSEMENT_STATUS_SENT_TO_INSURER';
const closed = (workflowId: string) => stack().temporal.workflow.getHandle(workflowId).result();

describe('recording workflow histories', function () {
  this.timeout(120_000);
  const s = () => stack();
  const start = async (workflowType: string, name: string, args: unknown[]) => {
    const workflowId = `${name}-${randomBytes(4).toString('hex')}`;
    await s().temporal.workflow.execute(workflowType, { taskQueue: s().taskQueue, workflowId, args });
    await recordHistory(workflowId, name);
  };

  it('the smoke workflow and every periodic pass', async () => {
    await start(SMOKE_WORKFLOW, 'smoke', [{ name: 'history' }]);
    for (const pass of PERIODIC_SCHEDULES) {
      await start(pass.workflowType, `periodic-${pass.scheduleId}`, [{ graceMs: 60_000 }]);
    }
    await start(INSURER_INBOX_PASS, 'insurer-inbox-pass', []);
  });

  it('endorsements: simulated approval, manual rejection, cancel after submission', async () => {
    const simulated = await makeWorld({ adapter: 'simulated' });
    const approved = await createEndorsement(simulated);
    await waitForStatus(approved, 'ENDORSEMENT_STATUS_APPROVED');
    await workflowHandle(approved).result();
    await recordHistory(workflowHandle(approved).workflowId, 'endorsement-simulated-approved');
    // The stack's simulated insurer decides inline (no delay); with one, it runs its own workflow.
    const delayed = createSimulatedAdapter({ temporal: s().temporal, taskQueue: s().taskQueue, delayMs: 1 });
    const restore = s().adapters.register('simulated', delayed);
    try {
      simulated.employee = await makeEmployee(simulated.client.clientId);
      const viaWorkflow = await createEndorsement(simulated);
      await waitForStatus(viaWorkflow, 'ENDORSEMENT_STATUS_APPROVED');
      await closed(simulatedInsurerWorkflowId(viaWorkflow));
      await recordHistory(simulatedInsurerWorkflowId(viaWorkflow), 'simulated-insurer-approved');
    } finally {
      restore();
    }

    const manual = await makeWorld();
    const rejected = await createEndorsement(manual);
    await waitForStatus(rejected, SENT);
    expect(await decide(rejected, { decision: 'REJECTED', rejection_reason: 'no' })).to.include({
      result: 'accepted',
    });
    await workflowHandle(rejected).result();
    await recordHistory(workflowHandle(rejected).workflowId, 'endorsement-manual-rejected');

    manual.employee = await makeEmployee(manual.client.clientId);
    const cancelled = await createEndorsement(manual);
    await waitFor(
      () => workflowState(cancelled),
      (st) => st.submitted,
      'submitted',
    );
    const res = await manual.api.post(`/v1/policy/endorsements/${cancelled}/cancel`, { token: manual.token });
    expect(res.status).to.equal(200);
    await workflowHandle(cancelled).result();
    await recordHistory(workflowHandle(cancelled).workflowId, 'endorsement-manual-cancelled-after-submit');
  });

  it("a file insurer's cut-off and its endorsements: approved, cancelled before and after delivery", async () => {
    const world = await sentFileInsurerEndorsements({ count: 0 });
    const employees = [0, 1, 2].map(async () => makeEmployee(world.client.clientId));
    const ids: string[] = [];
    for (const employee of await Promise.all(employees)) {
      ids.push(await createEndorsement({ ...world, employee }));
    }
    const [approved, cancelledAfter, cancelledBefore] = ids as [string, string, string];
    await waitFor(
      () =>
        sql('select count(*)::int as n from endorsements where id in (?) and cut_off_queued_at is not null', [
          ids,
        ]),
      (rows) => rows[0].n === 3,
      'queued for the cut-off',
    );
    const early = await world.api.post(`/v1/policy/endorsements/${cancelledBefore}/cancel`, {
      token: world.token,
    });
    expect(early.status).to.equal(200);
    const result = await flushInsurer(
      { em: s().orm.em.fork(), temporal: s().temporal, taskQueue: s().taskQueue },
      world.code,
      new Date(),
    );
    expect(result.sent).to.equal(2);
    await recordHistory(cutOffWorkflowId(world.code, new Date(result.cut_off)), 'cutoff-delivered-two');
    for (const id of [approved, cancelledAfter])
      await waitFor(
        () => workflowState(id),
        (st) => st.status === SENT,
        `${id} submitted`,
      );
    await decide(approved, { decision: 'APPROVED', uhid: 'UHID-H-1' });
    const late = await world.api.post(`/v1/policy/endorsements/${cancelledAfter}/cancel`, {
      token: world.token,
    });
    expect(late.status).to.equal(200);
    for (const id of ids) await workflowHandle(id).result();
    await recordHistory(workflowHandle(approved).workflowId, 'endorsement-file-approved');
    await recordHistory(
      workflowHandle(cancelledAfter).workflowId,
      'endorsement-file-cancelled-after-delivery',
    );
    await recordHistory(
      workflowHandle(cancelledBefore).workflowId,
      'endorsement-file-cancelled-before-cut-off',
    );
  });

  it('a grant on two policies, and the webhook deliveries of its events', async () => {
    const saved = s().config.WEBHOOK_ALLOW_PRIVATE;
    s().config.WEBHOOK_ALLOW_PRIVATE = true;
    const receiver = await startReceiver();
    try {
      const w = await grantWorld({ a: {}, b: {} });
      await addWebhook(s().orm.em, s().config, { clientId: w.clientId, url: receiver.url });
      const id = await grant(w);
      await waitForEndorsements(w, id, SENT, 2);
      const children = await sql('select id from endorsements where employee_id = ? order by id', [
        w.employee.id,
      ]);
      for (const { id: child } of children) await decide(child as string, { decision: 'APPROVED' });
      await grantHandle(id).result();
      await recordHistory(grantHandle(id).workflowId, 'grant-two-policies-approved');
      const [delivery] = await waitFor(
        () =>
          sql("select id from webhook_deliveries where client_id = ? and status = 'delivered'", [w.clientId]),
        (rows) => rows.length > 0,
        'a delivered webhook',
      );
      await closed(webhookWorkflowId(delivery.id as string));
      await recordHistory(webhookWorkflowId(delivery.id as string), 'webhook-delivered');
    } finally {
      s().config.WEBHOOK_ALLOW_PRIVATE = saved;
      await receiver.close();
    }
  });

  it('the CD account: an addition waits for funds and a top-up releases it; a roster reconciliation', async () => {
    const world = await makeWorld({ policy: { cdBalance: '100.00' } });
    const id = await createEndorsement(world);
    await waitFor(
      async () => (await workflowHandle(id).describe()).typedSearchAttributes.get(AwaitingFunds),
      (waiting) => waiting === true,
      'waiting for funds',
    );
    const topUp = await topUpCd(SystemScope.of(s().serviceOrm.em), world.policy.id, 1_000_000n, 'HISTORY-1');
    await wakeFundedEndorsements(s().temporal, topUp.funded);
    await waitForStatus(id, SENT);
    expect(await decide(id, { decision: 'APPROVED' })).to.include({ result: 'accepted' });
    await workflowHandle(id).result();
    await recordHistory(workflowHandle(id).workflowId, 'endorsement-awaited-funds-approved');

    const dir = mkdtempSync(path.join(os.tmpdir(), 'history-roster-'));
    try {
      const file = path.join(dir, 'roster.csv');
      const header = ROSTER_FIELDS.join(',');
      const row = `UH-H1,M-H1,${world.policy.policyNumber},E-H1,Someone,1990-01-01,SELF,500000,2026-01-01,2026-12-31,ACTIVE`;
      writeFileSync(file, `${header}\r\n${row}`);
      const deps = { em: s().orm.em.fork(), temporal: s().temporal, taskQueue: s().taskQueue };
      const result = await reconcileRosterFile(deps, world.policy.id, file);
      expect(result).to.include({ status: 'completed' });
      await recordHistory(
        reconciliationWorkflowId(result.reconciliation_id),
        'roster-reconciliation-completed',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a census batch: rows applied in chunks, an invalid row skipped, the batch completed', async () => {
    const w = await census();
    const rows = [
      newJoiner(`H-${w.clientId.slice(-6)}`),
      { employee_code: '', action: 'add', effective_date: '2026-12-01' },
    ];
    const res = await w.api.post('/v1/policy/endorsements/batches', {
      token: w.token,
      rawBody: censusCsv(rows),
      headers: { 'content-type': CSV },
    });
    expect(res.status).to.equal(202);
    const id = censusBatchWorkflowId(res.body.payload.batch_id as string);
    await closed(id);
    await recordHistory(id, 'census-batch-completed');
  });

  it('renewals: confirmed by HR and renewed on the new start; declined and expired at the end', async () => {
    const nudgeAll = () =>
      s().temporal.workflow.execute(RENEWAL_PASS, {
        taskQueue: s().taskQueue,
        workflowId: `renewal-pass-${randomBytes(4).toString('hex')}`,
        args: [],
      });
    const deps = {
      temporal: s().temporal,
      config: s().config,
      clock: s().workerClock,
      logger: createLogger('silent'),
    };
    try {
      s().workerClock.set('2027-02-01T00:01:00+05:30');
      const renewing = await makeWorld({ adapter: 'simulated' });
      const declining = await makeWorld({ adapter: 'simulated' });
      await makeMember(renewing.client.clientId, renewing.policy.id, renewing.employee, { uhid: 'UHID-R' });
      const started = [];
      for (const [w, decision] of [
        [renewing, 'CONFIRMED'],
        [declining, 'DECLINED'],
      ] as const) {
        const scope = TenantScope.of(s().serviceOrm.em, w.client.clientId);
        started.push((await startPolicyRenewal(deps, scope, w.policy.id, null)).workflow_id);
        await decidePolicyRenewal(deps, scope, w.policy.id, decision, 'client');
      }
      s().workerClock.set('2027-04-01T00:01:00+05:30');
      await nudgeAll();
      const [renewed, expired] = started as [string, string];
      expect(await closed(renewed)).to.equal('RENEWED');
      expect(await closed(expired)).to.equal('EXPIRED');
      await recordHistory(renewed, 'renewal-renewed');
      await recordHistory(expired, 'renewal-declined-expired');
    } finally {
      s().workerClock.reset();
    }
  });
});
