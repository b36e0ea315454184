import { expect } from 'chai';
import { setExitMode } from '../../usecases/clients.js';
import { findOverdueExits } from '../../admin/stuck.js';
import { systemClock, today } from '../../domain/clock.js';
import { addDays } from '../../domain/dates.js';
import type { CoverEndResult } from '../../workflows/periodic/contract.js';
import { ops } from '../support/ops.js';
import { stack } from '../support/stack.js';
import { makeEmployee, makeMember, sql } from '../support/factories.js';
import { checkCdLedgersAfterEachTest } from '../support/cd-ledger-check.js';
import { deletePeriodicSchedules, triggerPass } from '../support/schedules.js';
import {
  decide,
  ledger,
  makeWorld,
  memberRows,
  waitFor,
  waitForStatus,
  workflowHandle,
  type World,
} from './endorsement-support.js';

const LEAVING = '2026-12-31';

async function coveredWorld(mode: 'automatic' | 'proposed' = 'automatic'): Promise<World> {
  const world = await makeWorld({ policy: { cdBalance: '50000.00' } });
  await makeMember(world.client.clientId, world.policy.id, world.employee);
  await setExitMode(stack().orm.em.fork(), world.client.clientId, mode);
  return world;
}

const deletionsOf = (employeeId: string) =>
  sql(
    `select id, coverage_end_date::text as coverage_end_date, policy_id from endorsements
      where employee_id = ? and type = 'ENDORSEMENT_TYPE_DELETION' order by created_at`,
    [employeeId],
  );

const leave = (world: World, employeeId = world.employee.id) =>
  world.api.put(`/v1/client/employees/${employeeId}`, {
    token: world.token,
    body: { status: 'EMPLOYEE_STATUS_INACTIVE', date_of_leaving: LEAVING },
  });

const profile = (world: World) =>
  world.api.get(`/v1/client/employees/profile?employee_id=${world.employee.id}`, { token: world.token });

describe('exits (D16)', () => {
  checkCdLedgersAfterEachTest();

  it('automatic: an employee set INACTIVE with a leaving date gets one DELETION ending cover on that date', async () => {
    const world = await coveredWorld();
    expect((await leave(world)).status).to.equal(200);
    expect((await leave(world)).status).to.equal(200);
    const deletions = await deletionsOf(world.employee.id);
    expect(deletions).to.have.length(1);
    expect(deletions[0]).to.include({ coverage_end_date: LEAVING, policy_id: world.policy.id });
    expect((await profile(world)).body.payload.employee.date_of_leaving).to.equal(LEAVING);

    const id = deletions[0].id as string;
    await decide(id, { decision: 'APPROVED' });
    await waitForStatus(id, 'ENDORSEMENT_STATUS_APPROVED');
    const [member] = await memberRows(world.policy.id);
    expect(member).to.include({ coverage_end_date: LEAVING });
    // ₹10 a day refunded for 2027-01-01..2027-03-31 (90 days).
    expect(await ledger(world.policy.id)).to.deep.equal([
      { endorsement_id: id, amount: '900.00', balance_after: '50900.00' },
    ]);
    expect((await leave(world)).status).to.equal(200);
    expect(await deletionsOf(world.employee.id)).to.have.length(1);
    expect((await profile(world)).body.payload.pending_exits).to.deep.equal([]);
  });

  it('proposed: the exit is listed as pending until the client creates the DELETION', async () => {
    const world = await coveredWorld('proposed');
    expect((await leave(world)).status).to.equal(200);
    expect(await deletionsOf(world.employee.id)).to.have.length(0);
    expect((await profile(world)).body.payload.pending_exits).to.deep.equal([
      { policy_id: world.policy.id, coverage_end_date: LEAVING },
    ]);
    const created = await world.api.post('/v1/policy/endorsements', {
      token: world.token,
      body: {
        employee_id: world.employee.id,
        type: 'DELETION',
        coverage_start_date: '2026-04-01',
        coverage_end_date: LEAVING,
      },
    });
    expect(created.status).to.equal(200);
    expect((await profile(world)).body.payload.pending_exits).to.deep.equal([]);
    await waitForStatus(created.body.payload.endorsement_id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
  });

  it('the bulk PATCH ends cover of each leaver, a bad item failing alone', async () => {
    const world = await coveredWorld();
    const other = await makeEmployee(world.client.clientId);
    await makeMember(world.client.clientId, world.policy.id, other);
    const res = await world.api.patch('/v1/client/employees/bulk', {
      token: world.token,
      body: {
        employees: [
          { emp_id: world.employee.id, status: 'EMPLOYEE_STATUS_INACTIVE', date_of_leaving: LEAVING },
          { emp_id: other.id, status: 'EMPLOYEE_STATUS_ACTIVE', date_of_leaving: LEAVING },
        ],
      },
    });
    expect(res.status).to.equal(200);
    expect(res.body.payload.results[0]).to.deep.equal({ emp_id: world.employee.id, success: true });
    expect(res.body.payload.results[1].success).to.equal(false);
    expect(res.body.payload.results[1].error).to.contain('date_of_leaving: requires an inactive status');
    expect((await deletionsOf(world.employee.id)).map((d) => d.coverage_end_date)).to.deep.equal([LEAVING]);
    expect(await deletionsOf(other.id)).to.have.length(0);
    const [row] = await sql('select status, date_of_leaving::text as d from employees where id = ?', [
      world.employee.id,
    ]);
    expect(row).to.deep.equal({ status: 'INACTIVE', d: LEAVING });
    for (const d of await deletionsOf(world.employee.id)) {
      await waitForStatus(d.id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
    }
  });

  it('refuses a leaving date without an inactive status', async () => {
    const world = await coveredWorld();
    const res = await world.api.put(`/v1/client/employees/${world.employee.id}`, {
      token: world.token,
      body: { date_of_leaving: LEAVING },
    });
    expect(res.status).to.equal(400);
    expect(res.body.detail).to.contain('date_of_leaving: requires an inactive status in the same request');
  });
});

/*
 * D16: a leaver's automatic exit refused because the family had an open endorsement (the spouse's
 * ADDITION) is created when that endorsement settles; one still pending after the leaving date is
 * announced by the daily cover pass (`member-cover-end`, the worker's clock pinned) as
 * `employee.exit_overdue`, once, and listed for operators with what blocks it.
 */
describe('exits blocked by an open endorsement (D16)', function () {
  this.timeout(90_000);
  checkCdLedgersAfterEachTest();
  const noonIst = (day: string) => `${day}T06:30:00Z`;
  afterEach(async () => {
    stack().workerClock.reset();
    await deletePeriodicSchedules(stack().temporal);
  });

  /** A covered employee (E+S+C+P policy) whose spouse's own ADDITION is open at the insurer. */
  async function withSpouseJoining(): Promise<World & { spouseAddition: string }> {
    const world = await makeWorld({ policy: { coverageType: 'COVERAGE_TYPE_ESCP', cdBalance: '50000.00' } });
    await makeMember(world.client.clientId, world.policy.id, world.employee);
    const res = await world.api.post(`/v1/client/employees/${world.employee.id}/dependents`, {
      token: world.token,
      body: {
        name: 'Asha',
        gender: 'GENDER_FEMALE',
        relationship: 'SPOUSE',
        date_of_birth: '1995-01-01',
        event_date: addDays(today(systemClock), -5),
      },
    });
    expect(res.status, res.text).to.equal(200);
    const spouseAddition = res.body.payload.endorsements[0].endorsement_id as string;
    await waitForStatus(spouseAddition, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
    return { ...world, spouseAddition };
  }

  /** Triggers the daily cover pass now and answers its run's result. */
  async function coverPass(): Promise<CoverEndResult> {
    const { temporal, taskQueue } = stack();
    const before = await temporal.schedule
      .getHandle('member-cover-end')
      .describe()
      .then(
        (d) => d.info.recentActions.length,
        () => 0,
      );
    const schedule = await triggerPass(temporal, taskQueue, 'member-cover-end');
    const runs = await waitFor(
      async () => (await schedule.describe()).info.recentActions,
      (r) => r.length > before,
      'the cover pass to start',
    );
    const run = runs.at(-1)!.action.workflow;
    return temporal.workflow
      .getHandle(run.workflowId, run.firstExecutionRunId)
      .result() as Promise<CoverEndResult>;
  }

  /** The Markdown the Web UI shows as an endorsement workflow's current details. */
  const currentDetails = (endorsementId: string) =>
    workflowHandle(endorsementId)
      .query<{ currentDetails?: string }>('__temporal_workflow_metadata')
      .then((m) => m.currentDetails ?? '');

  const overdueEvents = (world: World) =>
    sql(
      `select payload from webhook_events where client_id = ? and type = 'employee.exit_overdue' order by created_at`,
      [world.client.clientId],
    );

  it("the spouse's ADDITION approved: the leaver's DELETION refused meanwhile is created and sent to the insurer", async () => {
    const world = await withSpouseJoining();
    expect((await leave(world)).status).to.equal(200);
    // Refused while the spouse's ADDITION is open: pending, listed on the employee.
    expect(await deletionsOf(world.employee.id)).to.deep.equal([]);
    expect((await profile(world)).body.payload.pending_exits).to.deep.equal([
      { policy_id: world.policy.id, coverage_end_date: LEAVING },
    ]);

    await decide(world.spouseAddition, { decision: 'APPROVED' });
    await waitForStatus(world.spouseAddition, 'ENDORSEMENT_STATUS_APPROVED');
    const [deletion] = await waitFor(
      () => deletionsOf(world.employee.id),
      (rows) => rows.length > 0,
      'the DELETION after the blocker settled',
    );
    expect(deletion).to.include({ coverage_end_date: LEAVING, policy_id: world.policy.id });
    await waitForStatus(deletion.id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
    expect((await profile(world)).body.payload.pending_exits).to.deep.equal([]);
    const [audit] = await sql(
      `select actor_token_id from audit_events where entity = 'endorsement' and entity_id = ? and action = 'create'`,
      [deletion.id],
    );
    expect(audit).to.deep.equal({ actor_token_id: null });
  });

  it("the spouse's ADDITION cancelled: the DELETION is created as well", async () => {
    const world = await withSpouseJoining();
    expect((await leave(world)).status).to.equal(200);
    const cancelled = await world.api.post(`/v1/policy/endorsements/${world.spouseAddition}/cancel`, {
      token: world.token,
    });
    expect(cancelled.status, cancelled.text).to.equal(200);
    await waitForStatus(world.spouseAddition, 'ENDORSEMENT_STATUS_CANCELLED');
    const [deletion] = await waitFor(
      () => deletionsOf(world.employee.id),
      (rows) => rows.length > 0,
      'the DELETION after the blocker settled',
    );
    expect(deletion).to.include({ coverage_end_date: LEAVING });
    await waitForStatus(deletion.id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
  });

  it('still blocked after the leaving date: announced once by the daily pass and listed for operators', async () => {
    const world = await withSpouseJoining();
    expect((await leave(world)).status).to.equal(200);

    stack().workerClock.set(noonIst(LEAVING));
    await coverPass();
    expect(await overdueEvents(world), 'not before the leaving date has passed').to.deep.equal([]);
    expect(await currentDetails(world.spouseAddition)).not.to.contain('exit waiting on it');

    stack().workerClock.set(noonIst('2027-01-02'));
    const first = await coverPass();
    expect(first.overdueExits).to.be.at.least(1);
    await coverPass();
    expect(await overdueEvents(world)).to.deep.equal([
      {
        payload: {
          employee_id: world.employee.id,
          policy_id: world.policy.id,
          blocked_by: [world.spouseAddition],
        },
      },
    ]);

    const listed = await findOverdueExits(stack().orm.em.fork(), {
      clientId: world.client.clientId,
      now: new Date(noonIst('2027-01-02')),
      webUi: (workflowId) => `ui/${workflowId}`,
    });
    expect(listed).to.deep.equal([
      {
        client_id: world.client.clientId,
        employee_id: world.employee.id,
        policy_id: world.policy.id,
        date_of_leaving: LEAVING,
        days_overdue: 2,
        blocked_by: [
          { endorsement_id: world.spouseAddition, web_ui: `ui/endorsement-${world.spouseAddition}` },
        ],
      },
    ]);
    expect(await deletionsOf(world.employee.id)).to.deep.equal([]);

    // The Web UI's page of the blocking endorsement's workflow says the exit waits on it, and since
    // which day: one line, though two passes told it; ids and dates only.
    const details = await waitFor(
      () => currentDetails(world.spouseAddition),
      (d) => d.includes('**exit waiting on it:**'),
      'the details to name the waiting exit',
    );
    expect(details.split('\n\n').filter((line) => line.startsWith('**exit waiting on it:**'))).to.deep.equal([
      `**exit waiting on it:** employee \`${world.employee.id}\` left on ${LEAVING}, exit overdue since 2027-01-01 (policy \`${world.policy.id}\`): the DELETION is created once this endorsement settles`,
    ]);
    expect(details).to.contain('**waiting for:** the decision of');
    expect(details).not.to.contain(world.employee.name);

    // Once it settles, the exit goes ahead (its DELETION is created) and the line is gone.
    await decide(world.spouseAddition, { decision: 'APPROVED' });
    await waitForStatus(world.spouseAddition, 'ENDORSEMENT_STATUS_APPROVED');
    await waitFor(
      () => deletionsOf(world.employee.id),
      (rows) => rows.length > 0,
      'the DELETION after the blocker settled',
    );
    expect(await currentDetails(world.spouseAddition)).not.to.contain('exit waiting on it');
  });

  it('npm run ops -- stuck --exits lists a leaver whose leaving date has passed, with the blocking endorsement', async () => {
    const world = await withSpouseJoining();
    // The command reads the operator's own clock: a leaving date before today (Asia/Kolkata).
    const left = addDays(today(systemClock), -2);
    const res = await world.api.put(`/v1/client/employees/${world.employee.id}`, {
      token: world.token,
      body: { status: 'EMPLOYEE_STATUS_INACTIVE', date_of_leaving: left },
    });
    expect(res.status).to.equal(200);
    const json = await ops('stuck', '--exits', '--client', world.client.clientId, '--json');
    expect(json.code, json.err).to.equal(0);
    const rows = JSON.parse(json.out) as Record<string, unknown>[];
    expect(rows).to.have.length(1);
    expect(rows[0]).to.deep.include({
      employee_id: world.employee.id,
      policy_id: world.policy.id,
      date_of_leaving: left,
      days_overdue: 2,
    });
    expect((rows[0]!.blocked_by as { endorsement_id: string }[]).map((b) => b.endorsement_id)).to.deep.equal([
      world.spouseAddition,
    ]);
    const text = await ops('stuck', '--client', world.client.clientId);
    expect(text.out.trim().split('\n').at(-1)).to.equal(
      'exits of leavers pending past the leaving date: 1 (ops stuck --exits)',
    );
  });
});
