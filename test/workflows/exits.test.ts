import { expect } from 'chai';
import { makeEmployee, makeMember, sql } from '../support/factories.js';
import { checkCdLedgersAfterEachTest } from '../support/cd-ledger-check.js';
import { decide, ledger, makeWorld, memberRows, waitForStatus, type World } from './endorsement-support.js';

const LEAVING = '2026-12-31';

async function coveredWorld(mode: 'automatic' | 'proposed' = 'automatic'): Promise<World> {
  const world = await makeWorld({ policy: { cdBalance: '50000.00' } });
  await makeMember(world.client.clientId, world.policy.id, world.employee);
  await sql('update clients set exit_mode = ? where id = ?', [mode, world.client.clientId]);
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
