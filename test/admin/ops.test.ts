import { expect } from 'chai';
import { findStuckEndorsements, formatAge, stuckVisibilityQuery } from '../../admin/stuck.js';
import { workflowUiUrl } from '../../config/index.js';
import { newId } from '../../domain/ids.js';
import { makeEmployee, makeEndorsement, sql } from '../support/factories.js';
import { deletePeriodicSchedules } from '../support/schedules.js';
import { ops } from '../support/ops.js';
import { stack } from '../support/stack.js';
import {
  createEndorsement,
  decide,
  endorsementApi,
  makeWorld,
  waitFor,
  waitForStatus,
  workflowHandle,
  type World,
} from '../workflows/endorsement-support.js';

const HOUR_MS = 3_600_000;

describe('ops: stuck endorsements from Temporal visibility joined with PostgreSQL', function () {
  this.timeout(60_000);
  let world: World;
  let stuckId: string;
  let openId: string;

  before(async () => {
    // An SLA of one second: the first endorsement is flagged EndorsementStuck almost at once.
    const impatient = await endorsementApi({ config: { ...stack().config, ENDORSEMENT_STUCK_AFTER: '1s' } });
    world = await makeWorld({ api: impatient });
    stuckId = await createEndorsement(world);
    const patient = {
      ...world,
      api: await endorsementApi(),
      employee: await makeEmployee(world.client.clientId),
    };
    openId = await createEndorsement(patient);
    await waitForStatus(openId, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
  });

  const find = (o: { olderThanMs?: number; now?: Date } = {}) =>
    findStuckEndorsements(stack().temporal, stack().orm.em.fork(), {
      clientId: world.client.clientId,
      now: new Date(),
      webUi: (workflowId) => workflowUiUrl(stack().config, workflowId),
      ...o,
    });

  it('lists an endorsement flagged EndorsementStuck with its row: employee, policy, status, age', async () => {
    const rows = await waitFor(
      () => find(),
      (r) => r.some((e) => e.endorsement_id === stuckId),
      'the stuck endorsement in visibility',
    );
    expect(rows.map((r) => r.endorsement_id)).to.deep.equal([stuckId]);
    expect(rows[0]).to.deep.include({
      workflow_id: `endorsement-${stuckId}`,
      client_id: world.client.clientId,
      employee_id: world.employee.id,
      policy_id: world.policy.id,
      policy_number: world.policy.policyNumber,
      type: 'ENDORSEMENT_TYPE_ADDITION',
      status: 'ENDORSEMENT_STATUS_SENT_TO_INSURER',
      stuck: true,
      workflow: 'RUNNING',
      web_ui: `http://localhost:${stack().config.TEMPORAL_UI_PORT}/namespaces/${stack().config.TEMPORAL_NAMESPACE}/workflows/endorsement-${stuckId}`,
    });
    expect(rows[0]!.age_seconds).to.be.within(0, 60);
  });

  it('with --older-than also lists open endorsements started before the threshold, and rows without a workflow', async () => {
    // A row left open without a running workflow (as if its workflow had been terminated by hand).
    const orphan = await makeEndorsement(world.client.clientId, world.policy.id, {
      status: 'ENDORSEMENT_STATUS_SENT_TO_INSURER',
      start: '2026-12-01',
      premium: '1000.00',
      workflowStartedAt: new Date(),
      createdAt: new Date(Date.now() - 3 * HOUR_MS),
    });
    const recent = await find({ olderThanMs: 2 * HOUR_MS });
    expect(recent.map((r) => r.endorsement_id)).to.deep.equal([orphan, stuckId]);
    expect(recent[0]).to.deep.include({ workflow: 'NOT_RUNNING', stuck: false });
    expect(recent[0]!.age_seconds).to.be.within(3 * 3600 - 60, 3 * 3600 + 60);

    // Seen from two hours on, every open one has started more than an hour before.
    const later = await find({ olderThanMs: HOUR_MS, now: new Date(Date.now() + 2 * HOUR_MS) });
    expect(later.map((r) => r.endorsement_id)).to.have.members([orphan, stuckId, openId]);
    expect(later.find((r) => r.endorsement_id === openId)).to.deep.include({
      stuck: false,
      workflow: 'RUNNING',
    });
    await sql("update endorsements set status = 'ENDORSEMENT_STATUS_CANCELLED' where id = ?", [orphan]);
  });

  it('builds the visibility query the operators guide shows', () => {
    const now = new Date('2026-11-22T06:00:00Z');
    expect(
      stuckVisibilityQuery({ now, olderThanMs: 3 * 24 * HOUR_MS, policyId: 'pol_x', webUi: String }),
    ).to.equal(
      "WorkflowType = 'endorsementWorkflow' AND ExecutionStatus = 'Running' AND PolicyId = 'pol_x' AND " +
        "(EndorsementStuck = true OR (EndorsementStatus IN ('ENDORSEMENT_STATUS_PENDING', " +
        "'ENDORSEMENT_STATUS_SENT_TO_INSURER') AND StartTime < '2026-11-19T06:00:00.000Z'))",
    );
    expect(formatAge(3 * 86_400 + 4 * 3600 + 59)).to.equal('3d 4h');
    expect(formatAge(42)).to.equal('42s');
  });

  it('npm run ops -- views prints Web UI list links whose queries find the stuck one and the insurer backlog', async () => {
    const rows = (await sql('select insurer_id from policies where id = ?', [world.policy.id])) as {
      insurer_id: string;
    }[];
    const insurerId = rows[0]!.insurer_id;
    const out = await ops('views', '--insurer', insurerId, '--json');
    expect(out.code, out.err).to.equal(0);
    const views = JSON.parse(out.out) as { view: string; query: string; web_ui: string }[];
    expect(views.map((v) => v.view)).to.deep.equal([
      'stuck',
      'sla-breached',
      'awaiting-funds',
      'insurer-backlog',
    ]);
    const list = `http://localhost:${stack().config.TEMPORAL_UI_PORT}/namespaces/${stack().config.TEMPORAL_NAMESPACE}/workflows?query=`;
    for (const v of views) expect(decodeURIComponent(v.web_ui.slice(list.length)), v.view).to.equal(v.query);
    expect(views.every((v) => v.web_ui.startsWith(list))).to.equal(true);

    // What the operator sees when the link opens: the same query against this run's visibility.
    const listed = async (query: string) => {
      const ids: string[] = [];
      for await (const wf of stack().temporal.workflow.list({ query })) ids.push(wf.workflowId);
      return ids;
    };
    const byView = Object.fromEntries(views.map((v) => [v.view, v.query]));
    const stuck = await waitFor(
      () => listed(byView.stuck!),
      (ids) => ids.includes(`endorsement-${stuckId}`),
      'the stuck view',
    );
    expect(stuck).to.not.include(`endorsement-${openId}`);
    const backlog = await waitFor(
      () => listed(byView['insurer-backlog']!),
      (ids) => ids.includes(`endorsement-${openId}`),
      "the insurer's backlog view",
    );
    expect(backlog).to.include(`endorsement-${stuckId}`);

    const text = await ops('views');
    expect(text.code, text.err).to.equal(0);
    expect(text.out).to.contain('stuck\n  query  ').and.to.contain(`  open   ${list}`);
    expect(text.out).to.not.contain('insurer-backlog');
  });

  it('npm run ops -- stuck prints the list as a table and as JSON', async () => {
    const json = await ops('stuck', '--client', world.client.clientId, '--json');
    expect(json.code, json.err).to.equal(0);
    const rows = JSON.parse(json.out) as { endorsement_id: string; stuck: boolean }[];
    expect(rows.map((r) => [r.endorsement_id, r.stuck])).to.deep.equal([[stuckId, true]]);

    const text = await ops('stuck', '--client', world.client.clientId, '--older-than', '0s');
    expect(text.code, text.err).to.equal(0);
    const lines = text.out.trim().split('\n');
    expect(lines[0]).to.match(
      /^ENDORSEMENT\s+STATUS\s+AGE\s+STUCK\s+WORKFLOW\s+TYPE\s+EMPLOYEE\s+POLICY\s+CLIENT\s+WEB UI$/,
    );
    expect(lines.find((l) => l.startsWith(stuckId))).to.match(
      /SENT_TO_INSURER\s+\S+( \S+)?\s+yes\s+RUNNING\s+ADDITION/,
    );
    // Each row ends with the workflow's Web UI page (TEMPORAL_UI_URL, else the local UI).
    expect(lines.find((l) => l.startsWith(stuckId))).to.match(
      new RegExp(`\\shttp://localhost:\\d+/namespaces/[^/]+/workflows/endorsement-${stuckId}$`),
    );
    expect(lines.find((l) => l.startsWith(openId))).to.match(/\sno\s+RUNNING\s/);

    const bad = await ops('stuck', '--older-than', 'three days');
    expect(bad.code).to.equal(2);
    expect(bad.err).to.contain('--older-than');
  });

  it('npm run ops -- cancel cancels through the workflow, like the API; refused once decided', async () => {
    const res = await ops('cancel', stuckId, '--json');
    expect(res.code, res.err).to.equal(0);
    expect(JSON.parse(res.out)).to.deep.equal({
      endorsement_id: stuckId,
      status: 'ENDORSEMENT_STATUS_CANCELLED',
      message: 'cancelled',
    });
    await waitForStatus(stuckId, 'ENDORSEMENT_STATUS_CANCELLED');
    expect((await workflowHandle(stuckId).describe()).status.name).to.equal('COMPLETED');

    const again = await ops('cancel', stuckId);
    expect(again.code).to.equal(0);
    expect(again.out.trim()).to.equal(`${stuckId}: already cancelled`);

    await decide(openId, { decision: 'APPROVED', uhid: 'UH-1' });
    await waitForStatus(openId, 'ENDORSEMENT_STATUS_APPROVED');
    const refused = await ops('cancel', openId);
    expect(refused.code).to.equal(1);
    expect(refused.err.trim()).to.equal('cannot cancel: the endorsement is ENDORSEMENT_STATUS_APPROVED');

    const unknown = await ops('cancel', newId('endorsement'));
    expect(unknown.code).to.equal(1);
    expect(unknown.err).to.contain('unknown endorsement');
  });
});

describe('ops schedules: the reconcilers and the sweeper as Temporal Schedules', function () {
  this.timeout(60_000);
  after(() => deletePeriodicSchedules(stack().temporal));

  it('--create makes the periodic Schedules; the listing shows their state, including a pause', async () => {
    await deletePeriodicSchedules(stack().temporal);
    const before = await ops('schedules', '--json');
    expect(before.code, before.err).to.equal(0);
    const periodic = (out: string) =>
      JSON.parse(out).filter((r: any) => !r.schedule_id.startsWith('insurer-cut-off-'));
    expect(periodic(before.out).map((r: any) => r.missing)).to.deep.equal([
      true,
      true,
      true,
      true,
      true,
      true,
      true,
      true,
    ]);

    const created = await ops('schedules', '--create', '--json');
    expect(created.code, created.err).to.equal(0);
    const rows = periodic(created.out);
    expect(
      rows.map((r: any) => [r.schedule_id, r.workflow_type, r.task_queue, r.paused, r.interval_seconds]),
    ).to.deep.equal([
      ['endorsement-reconciler', 'endorsementReconcilePassWorkflow', stack().taskQueue, false, 300],
      ['grant-reconciler', 'grantReconcilePassWorkflow', stack().taskQueue, false, 300],
      ['webhook-sweeper', 'webhookSweepPassWorkflow', stack().taskQueue, false, 600],
      ['member-cover-end', 'memberCoverEndPassWorkflow', stack().taskQueue, false, null],
      ['cd-balance-check', 'cdBalanceCheckPassWorkflow', stack().taskQueue, false, null],
      ['dependent-age-out', 'dependentAgeOutPassWorkflow', stack().taskQueue, false, null],
      ['policy-renewal', 'renewalPassWorkflow', stack().taskQueue, false, null],
      ['insurer-inbox', 'insurerInboxPassWorkflow', stack().taskQueue, false, 300],
    ]);

    await stack().temporal.schedule.getHandle('grant-reconciler').pause('held for maintenance');
    const again = await ops('schedules', '--create');
    expect(again.code, again.err).to.equal(0);
    expect(again.out).to.match(/^grant-reconciler\s+PAUSED\s+every 300s/m);
    expect(again.out).to.match(/^endorsement-reconciler\s+active\s+every 300s/m);
  });
});
