import { expect } from 'chai';
import { fixedClock } from '../../domain/clock.js';
import { ENDORSEMENT_WORKFLOW } from '../../workflows/endorsement/contract.js';
import { makeEmployee, makeMember, sql } from '../support/factories.js';
import { client as http } from '../support/http.js';
import { stack } from '../support/stack.js';
import { makeWorld, waitForStatus, type World } from '../workflows/endorsement-support.js';

/*
 * D17: `POST /v1/policy/endorsements?dry_run=true` answers what the create would do (the routed
 * policy, the premium pro-rata by days, the CD hold and whether cover would wait for funds) and
 * writes nothing. The API's clock is pinned to 2026-10-01 (noon in Asia/Kolkata): on the 2026-04-01
 * to 2027-03-31 policy (365 days) the ₹3,650 slab costs ₹10 a day.
 */
const PATH = '/v1/policy/endorsements';

describe('endorsement dry run (D17)', function () {
  this.timeout(60_000);
  const clock = fixedClock('2026-10-01T06:30:00Z');
  let apiUrl: string;

  before(async () => {
    apiUrl = (await stack().startApi({ clock })).url;
  });

  const world = (cdBalance = '50000.00') => makeWorld({ api: http(apiUrl), policy: { cdBalance } });
  const tokenOf = (w: World, scopes?: Parameters<World['client']['token']>[0]) =>
    w.client.token(scopes, clock);
  const addition = (w: World) => ({
    employee_id: w.employee.id,
    type: 'ADDITION',
    coverage_start_date: '2026-10-01',
    coverage_end_date: '2027-03-31',
  });

  /** What a dry run must leave untouched: the client's rows in every table a create writes. */
  const footprint = async (w: World) => {
    const [row] = await sql(
      `select (select count(*)::int from endorsements where client_id = ?) as endorsements,
              (select count(*)::int from cd_ledger_entries where client_id = ?) as ledger,
              (select count(*)::int from idempotency_records where client_id = ?) as idempotency,
              (select count(*)::int from audit_events where client_id = ?) as audit,
              (select cd_balance::text || '/' || cd_held::text from policies where id = ?) as account`,
      [w.client.clientId, w.client.clientId, w.client.clientId, w.client.clientId, w.policy.id],
    );
    return row;
  };

  it('prices an ADDITION on the routed policy with its CD hold, and writes nothing', async () => {
    const w = await world();
    const before = await footprint(w);
    const res = await w.api.post(`${PATH}?dry_run=true`, {
      token: tokenOf(w),
      body: addition(w),
      headers: { 'Idempotency-Key': 'dry-1' },
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.payload).to.deep.equal({
      dry_run: true,
      endorsement: {
        type: 'ENDORSEMENT_TYPE_ADDITION',
        employee_id: w.employee.id,
        dependent_id: null,
        policy_id: w.policy.id,
        policy_number: w.policy.policyNumber,
        coverage_start_date: '2026-10-01',
        coverage_end_date: '2027-03-31',
        sum_insured: 300000,
        premium_impact: 1820,
        pro_rata_days: 182,
      },
      cd: { available: 50000, hold: 1820, available_after: 48180, waits_for_funds: false },
      message: 'Endorsement checked; nothing was written',
      success: true,
    });
    expect(await footprint(w)).to.deep.equal(before);
    const started = await stack().temporal.workflow.count(
      `WorkflowType = '${ENDORSEMENT_WORKFLOW}' AND ClientId = '${w.client.clientId}'`,
    );
    expect(started.count).to.equal(0);

    // The key was not spent: the same key then creates, with the price the dry run gave.
    const created = await w.api.post(PATH, {
      token: tokenOf(w),
      body: addition(w),
      headers: { 'Idempotency-Key': 'dry-1' },
    });
    expect(created.status, created.text).to.equal(200);
    const id = created.body.payload.endorsement_id as string;
    const [row] = await sql('select premium_impact::text as p, policy_id from endorsements where id = ?', [
      id,
    ]);
    expect(row).to.deep.equal({ p: '1820.00', policy_id: w.policy.id });
    await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
  });

  it('says cover would wait for funds when the balance does not cover the hold', async () => {
    const w = await world('1000.00');
    const res = await w.api.post(`${PATH}?dry_run=true`, { token: tokenOf(w), body: addition(w) });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.payload.cd).to.deep.equal({
      available: 1000,
      hold: 1820,
      available_after: 1000,
      waits_for_funds: true,
    });
  });

  it('prices a DELETION as a refund of the unused days, holding nothing', async () => {
    const w = await world();
    await makeMember(w.client.clientId, w.policy.id, w.employee);
    const res = await w.api.post(`${PATH}?dry_run=true`, {
      token: tokenOf(w),
      body: {
        employee_id: w.employee.id,
        type: 'DELETION',
        coverage_start_date: '2026-04-01',
        coverage_end_date: '2026-12-31',
      },
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.payload.endorsement).to.include({ premium_impact: -900, pro_rata_days: 90 });
    expect(res.body.payload.cd).to.deep.equal({
      available: 50000,
      hold: 0,
      available_after: 50000,
      waits_for_funds: false,
    });
  });

  it('refuses what the create refuses, and shows the CD forecast only to a token that reads the CD account', async () => {
    const w = await world();
    const covered = await makeEmployee(w.client.clientId);
    await makeMember(w.client.clientId, w.policy.id, covered);
    const refused = await w.api.post(`${PATH}?dry_run=true`, {
      token: tokenOf(w),
      body: { ...addition(w), employee_id: covered.id, policy_id: w.policy.id },
    });
    expect(refused.status).to.equal(409);
    expect(refused.body).to.include({ title: 'Employee Already Covered' });

    const narrow = await w.api.post(`${PATH}?dry_run=true`, {
      token: tokenOf(w, ['policy.endorsements']),
      body: addition(w),
    });
    expect(narrow.status, narrow.text).to.equal(200);
    expect(narrow.body.payload.cd).to.equal(null);
    expect(narrow.body.payload.endorsement).to.include({ premium_impact: 1820, policy_id: w.policy.id });
  });
});
