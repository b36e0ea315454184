import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import YAML from 'yaml';
import { loadReferenceData } from '../../usecases/reference-load.js';
import { loadFileSchema } from '../../domain/schemas/reference-load.js';
import { fixedClock } from '../../domain/clock.js';
import { checkCdLedgersAfterEachTest } from '../support/cd-ledger-check.js';
import { makeClient, makeMember, sql } from '../support/factories.js';
import { client as http, type HttpClient } from '../support/http.js';
import { startInsurerServer, type InsurerServer } from '../support/insurer-server.js';
import { stack } from '../support/stack.js';
import {
  createEndorsement,
  decide,
  makeWorld,
  waitFor,
  waitForStatus,
  type World,
} from './endorsement-support.js';

/*
 * D17 reinstatement: within REINSTATEMENT_WINDOW_DAYS after a DELETION's cover ended, a REINSTATEMENT
 * restores the cover without a gap, priced for the restored days. The API's clock and the worker's
 * clock are pinned to the same business day (noon in Asia/Kolkata) and moved together (D13).
 */
const noonIst = (day: string) => `${day}T06:30:00Z`;

const SECRET_ENV = `TEST_REINSTATEMENT_INSURER_SECRET_${randomBytes(4).toString('hex').toUpperCase()}`;
const SECRET = `whsec_${randomBytes(32).toString('base64url')}`;

/** One insurer on the `api` adapter at the loopback server, one policy, one employee with a family. */
const loadFile = (baseUrl: string, code: string) =>
  `
insurers:
  - code: ${code}
    name: Reinstating Insurer
    logo_url: https://assets.example.com/rein.png
    adapter: api
    adapter_settings:
      base_url: ${baseUrl}
      signing_secret_env: ${SECRET_ENV}
      timeout_ms: 5000
tpas:
  - { code: MEDI, name: Medi Assist }
products:
  - { code: ${code}-GH, name: Group Health, category: Group Health, insurer: ${code} }
policies:
  - policy_number: ${code}/GH/2026/0001
    insurer: ${code}
    product: ${code}-GH
    tpa: MEDI
    net_premium: 100000
    gross_premium: 118000
    coverage_type: COVERAGE_TYPE_ES
    type: POLICY_TYPE_FAMILY_FLOATER
    status: POLICY_STATUS_ACTIVE
    start_date: '2026-04-01'
    end_date: '2027-03-31'
    slabs:
      - { sum_insured: 300000, annual_premium: 3650 }
    cd_balance: 500000
employees:
  - employee_id: ${code}-001
    name: Kiran Das
    email: kiran.das@employer.example.com
    phone_number: '+919800000200'
    date_of_birth: '1985-02-11'
    gender: GENDER_MALE
    date_of_joining: '2019-06-03'
    status: EMPLOYEE_STATUS_ACTIVE
    dependents:
      - { name: Mira Das, relationship: SPOUSE, date_of_birth: '1986-08-21', gender: GENDER_FEMALE }
`;

describe('reinstatement endorsements (D17)', function () {
  checkCdLedgersAfterEachTest();
  this.timeout(90_000);
  const clock = fixedClock(noonIst('2026-10-01'));
  let api: HttpClient;
  let insurer: InsurerServer;

  const setToday = (day: string) => {
    clock.set(noonIst(day));
    stack().workerClock.set(noonIst(day));
  };

  before(async () => {
    process.env[SECRET_ENV] = SECRET;
    insurer = await startInsurerServer(SECRET);
    api = http((await stack().startApi({ clock })).url);
  });
  beforeEach(() => setToday('2026-10-01'));
  after(async () => {
    stack().workerClock.reset();
    delete process.env[SECRET_ENV];
    await insurer?.close();
  });

  /** World with tokens of the pinned clock. */
  const pinned = (w: World): World => ({ ...w, token: w.client.token(undefined, clock) });

  async function approved(world: World, body: Parameters<typeof createEndorsement>[1], ids = {}) {
    const id = await createEndorsement(pinned(world), body);
    await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
    const answer = await decide(id, { decision: 'APPROVED', ...ids });
    expect(answer.result, JSON.stringify(answer)).to.equal('accepted');
    await waitForStatus(id, 'ENDORSEMENT_STATUS_APPROVED');
    return id;
  }

  const deletion = (world: World, endDate: string) =>
    approved(world, { type: 'DELETION', coverage_start_date: '2026-04-01', coverage_end_date: endDate });

  const reinstate = (world: World, body: Record<string, unknown> = {}, query = '') =>
    api.post(`/v1/policy/endorsements${query}`, {
      token: pinned(world).token,
      body: { employee_id: world.employee.id, type: 'REINSTATEMENT', ...body },
    });

  let loads = 0;
  async function apiInsurerWorld(): Promise<World> {
    const code = `REIN${randomBytes(3).toString('hex').toUpperCase()}${++loads}`;
    const client = await makeClient();
    const file = loadFileSchema.parse(YAML.parse(loadFile(insurer.url, code)));
    const loaded = await loadReferenceData(stack().orm.em.fork(), client.clientId, file);
    const policyNumber = `${code}/GH/2026/0001`;
    return {
      client,
      token: client.token(),
      api,
      policy: { id: loaded.policies[policyNumber]!, policyNumber },
      employee: { id: loaded.employees[`${code}-001`]!, name: 'Kiran Das', employeeCode: `${code}-001` },
    };
  }

  it('inside the window: priced for the restored days, sent to the insurer as a REINSTATEMENT, and on approval the cover is back with its original start, UHID and members', async () => {
    const world = await apiInsurerWorld();
    const token = () => pinned(world).token;
    await approved(
      world,
      { type: 'ADDITION', coverage_start_date: '2026-04-01', coverage_end_date: '2027-03-31' },
      { uhid: 'UHID-REIN-1', insurer_member_id: 'REIN-M-1' },
    );
    const before = await api.get(`/v1/policy/${world.policy.id}/members`, { token: token() });
    const memberIds = (before.body.payload.members as { id: string }[]).map((m) => m.id).sort();
    expect(memberIds).to.have.length(2); // the employee and the spouse (COVERAGE_TYPE_ES)
    const deletionId = await deletion(world, '2026-10-15');

    setToday('2026-10-20');
    expect((await api.get(`/v1/policy/coverage/${world.employee.id}`, { token: token() })).status).to.equal(
      404,
    );

    // The dry run answers the price of the restored days: 2026-10-16..2027-03-31 is 167 days at
    // ₹3,650 a year over 365 days, ₹1,670.00: the DELETION's refund for the same days, reversed.
    const dry = await reinstate(world, {}, '?dry_run=true');
    expect(dry.status, dry.text).to.equal(200);
    expect(dry.body.payload.endorsement).to.deep.equal({
      type: 'ENDORSEMENT_TYPE_REINSTATEMENT',
      employee_id: world.employee.id,
      dependent_id: null,
      policy_id: world.policy.id,
      policy_number: world.policy.policyNumber,
      coverage_start_date: '2026-10-16',
      coverage_end_date: '2027-03-31',
      sum_insured: 300000,
      premium_impact: 1670,
      pro_rata_days: 167,
    });
    const [refund] = await sql('select premium_impact::text as p from endorsements where id = ?', [
      deletionId,
    ]);
    expect(refund.p).to.equal('-1670.00');

    // No policy_id: routed to the policy of the employee's most recent DELETION.
    const created = await reinstate(world);
    expect(created.status, created.text).to.equal(200);
    const id = created.body.payload.endorsement_id as string;
    await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
    const call = (
      await waitFor(
        async () => insurer.calls.filter((c) => c.idempotencyKey === id),
        (calls) => calls.length > 0,
        'the insurer to receive the reinstatement',
      )
    )[0]!;
    expect(call.verified).to.equal(true);
    expect(call.body).to.deep.equal({
      id,
      kind: 'submission',
      endorsement: {
        id,
        type: 'REINSTATEMENT',
        policy_number: world.policy.policyNumber,
        employee_id: world.employee.employeeCode,
        coverage_start_date: '2026-10-16',
        coverage_end_date: '2027-03-31',
        sum_insured: '300000.00',
        premium_impact: '1670.00',
      },
      members: [
        { relationship: 'SELF', name: 'Kiran Das', date_of_birth: '1985-02-11', gender: 'MALE' },
        { relationship: 'SPOUSE', name: 'Mira Das', date_of_birth: '1986-08-21', gender: 'FEMALE' },
      ],
    });

    const decided = await decide(id, { decision: 'APPROVED', uhid: 'UHID-REIN-1' });
    expect(decided.result).to.equal('accepted');
    await waitForStatus(id, 'ENDORSEMENT_STATUS_APPROVED');

    const shown = await api.get(`/v1/policy/endorsements/${id}`, { token: token() });
    expect(shown.status).to.equal(200);
    expect(shown.body.payload.endorsement).to.include({
      type: 'ENDORSEMENT_TYPE_REINSTATEMENT',
      status: 'ENDORSEMENT_STATUS_APPROVED',
      coverage_start_date: '2026-10-16',
      coverage_end_date: '2027-03-31',
      premium_impact: 1670,
    });

    // Coverage shows the original start: no gap, the same UHID.
    const coverage = await api.get(`/v1/policy/coverage/${world.employee.id}`, { token: token() });
    expect(coverage.status, coverage.text).to.equal(200);
    expect(coverage.body.payload).to.have.length(1);
    expect(coverage.body.payload[0]).to.include({
      policy_id: world.policy.id,
      coverage_start_date: '2026-04-01',
      coverage_end_date: '2027-03-31',
      uhid: 'UHID-REIN-1',
    });
    const after = await api.get(`/v1/policy/${world.policy.id}/members?status=ACTIVE`, { token: token() });
    const rows = after.body.payload.members as Record<string, unknown>[];
    expect(rows.map((m) => m.id).sort()).to.deep.equal(memberIds);
    for (const m of rows) {
      expect(m).to.include({
        status: 'active',
        coverage_start_date: '2026-04-01',
        coverage_end_date: '2027-03-31',
      });
    }
    const audit = await sql(
      `select entity_id from audit_events where entity = 'policy_member' and action = 'reinstate'
        and entity_id in (select jsonb_array_elements_text(?::jsonb))`,
      [JSON.stringify(memberIds)],
    );
    expect(audit).to.have.length(2);

    // The CD ledger: the debit keyed by the reinstatement, and the balance it leaves.
    const ledger = await api.get(`/v1/policy/${world.policy.id}/cd-ledger`, { token: token() });
    expect(ledger.status, ledger.text).to.equal(200);
    const entries = ledger.body.payload.entries as Record<string, unknown>[];
    const debit = entries.filter((e) => e.endorsement_id === id && e.kind === 'debit');
    expect(debit).to.have.length(1);
    expect(debit[0]).to.include({ amount: -1670, balance: 496350 });
    const [policy] = await sql(
      'select cd_balance::text as b, cd_held::text as h from policies where id = ?',
      [world.policy.id],
    );
    expect(policy).to.deep.equal({ b: '496350.00', h: '0.00' });

    // Covered again: a second reinstatement is refused.
    const again = await reinstate(world);
    expect(again.status).to.equal(409);
    expect(again.body).to.include({ title: 'Employee Already Covered' });
  });

  /** A manual insurer's world: the employee covered for the year, with the covered rows. */
  async function coveredWorld(): Promise<World> {
    const world = await makeWorld({ api });
    await makeMember(world.client.clientId, world.policy.id, world.employee, { uhid: 'UHID-M-1' });
    return world;
  }

  it('outside the window: 409 naming the window, the end of cover and the last day; the last day itself is inside', async () => {
    const world = await coveredWorld();
    await deletion(world, '2026-10-15');

    setToday('2026-11-14'); // 2026-10-15 + 30 days: the last day
    const last = await reinstate(world, { policy_id: world.policy.id }, '?dry_run=true');
    expect(last.status, last.text).to.equal(200);
    expect(last.body.payload.endorsement).to.include({
      coverage_start_date: '2026-10-16',
      coverage_end_date: '2027-03-31',
      premium_impact: 1670,
    });

    setToday('2026-11-15');
    const late = await reinstate(world, { policy_id: world.policy.id });
    expect(late.status).to.equal(409);
    expect(late.body).to.deep.include({
      type: 'CONFLICT',
      title: 'Reinstatement Window Closed',
    });
    expect(late.body.detail).to.match(
      /^a REINSTATEMENT is accepted within 30 days after the cover ended: the cover ended on 2026-10-15 \(DELETION end_\w+\), the last day it could be reinstated was 2026-11-14$/,
    );
    const [count] = await sql(
      `select count(*)::int as n from endorsements where employee_id = ? and type = 'ENDORSEMENT_TYPE_REINSTATEMENT'`,
      [world.employee.id],
    );
    expect(count.n).to.equal(0);
  });

  it('the window is REINSTATEMENT_WINDOW_DAYS', async () => {
    const short = http(
      (
        await stack().startApi({
          clock,
          config: { ...(await stack().deps()).config, REINSTATEMENT_WINDOW_DAYS: 5 },
        })
      ).url,
    );
    const world = await coveredWorld();
    await deletion(world, '2026-10-15');
    setToday('2026-10-21');
    const late = await short.post('/v1/policy/endorsements', {
      token: pinned(world).token,
      body: { employee_id: world.employee.id, type: 'REINSTATEMENT' },
    });
    expect(late.status).to.equal(409);
    expect(late.body.detail).to.contain('within 5 days').and.contain('was 2026-10-20');
  });

  it('refuses with the reason: no DELETION, a cover not yet ended, an unknown employee or policy', async () => {
    const world = await coveredWorld();
    const none = await reinstate(world);
    expect(none.status).to.equal(409);
    expect(none.body).to.deep.include({
      type: 'CONFLICT',
      title: 'Nothing To Reinstate',
      detail: 'the employee has no approved DELETION on an active policy to reinstate',
    });
    const onPolicy = await reinstate(world, { policy_id: world.policy.id });
    expect(onPolicy.body.detail).to.equal(
      'the employee has no approved DELETION on this policy to reinstate',
    );

    await deletion(world, '2026-10-15');
    setToday('2026-10-15');
    const early = await reinstate(world);
    expect(early.status).to.equal(409);
    expect(early.body.title).to.equal('Nothing To Reinstate');
    expect(early.body.detail).to.match(
      /^the cover ends on 2026-10-15 \(DELETION end_\w+\); it can be reinstated from 2026-10-16$/,
    );

    setToday('2026-10-16');
    const unknownPolicy = await reinstate(world, { policy_id: 'pol_doesnotexist' });
    expect(unknownPolicy.status).to.equal(404);
    expect(unknownPolicy.body.title).to.equal('Policy Not Found');
    const unknownEmployee = await reinstate(world, { employee_id: 'emp_doesnotexist' });
    expect(unknownEmployee.status).to.equal(404);
    expect(unknownEmployee.body.title).to.equal('Employee Not Found');
  });

  it('validates the request: no dates, sum insured or dependent; the type error lists REINSTATEMENT', async () => {
    const world = await coveredWorld();
    const dated = await reinstate(world, { coverage_start_date: '2026-10-16', sum_insured: 300000 });
    expect(dated.status).to.equal(400);
    expect(dated.body).to.deep.include({
      type: 'VALIDATION_ERROR',
      detail:
        "coverage_start_date: not accepted for a REINSTATEMENT (the cover resumes the day after the DELETION's last covered day); " +
        "sum_insured: not accepted for a REINSTATEMENT (the member's sum insured before the DELETION comes back)",
    });
    const dependent = await reinstate(world, { dependent_id: 'dep_x' });
    expect(dependent.status).to.equal(400);
    expect(dependent.body.detail).to.equal(
      'dependent_id: not accepted for a REINSTATEMENT (the employee is reinstated with the dependents whose cover ended with theirs)',
    );
    const wrong = await reinstate(world, { type: 'REINSTATE' });
    expect(wrong.status).to.equal(400);
    expect(wrong.body).to.deep.include({
      type: 'INVALID_ENDORSEMENT_TYPE',
      detail: 'type: must be one of ADDITION, DELETION, MODIFICATION, REINSTATEMENT',
    });
    const prefixed = await reinstate(world, { type: 'ENDORSEMENT_TYPE_REINSTATEMENT' });
    expect(prefixed.status).to.equal(409); // the spelling is accepted; there is nothing to reinstate
    expect(prefixed.body.title).to.equal('Nothing To Reinstate');
  });
});
