import { expect } from 'chai';
import { fixedClock } from '../../domain/clock.js';
import { newId } from '../../domain/ids.js';
import {
  makeClient,
  makeDependent,
  makeEmployee,
  makeEndorsement,
  makeMember,
  makePolicy,
  makeReferenceData,
  sql,
  type TestClient,
} from '../support/factories.js';
import { client, type HttpClient } from '../support/http.js';
import { stack } from '../support/stack.js';

/** 11:30 in Asia/Kolkata on 2026-11-22: "today" for every lookup below unless a test moves its own clock. */
const NOW = '2026-11-22T06:00:00Z';
const NOW_S = Date.parse(NOW) / 1000;
const ENTRY_FIELDS = [
  'policy_id',
  'policy_number',
  'insurer_name',
  'insurer_logo',
  'product_name',
  'category',
  'tpa_name',
  'type',
  'coverage_type',
  'start_date',
  'end_date',
  'coverage_start_date',
  'coverage_end_date',
  'sum_insured',
  'network_hospital_url',
  'pdf_url',
  'uhid',
];

const coveragePath = (employeeId: string) => `/v1/policy/coverage/${employeeId}`;

describe('GET /v1/policy/coverage/{employee_id} (spec 4.11, D10)', () => {
  const clock = fixedClock(NOW);
  let http: HttpClient;
  let baseUrl: string;
  let c: TestClient;
  let token: string;

  before(async () => {
    const api = await stack().startApi({ clock });
    http = client(api.url);
    baseUrl = api.deps.config.baseUrl;
    c = await makeClient();
    token = c.token(['policy.get'], clock);
  });

  const lookup = (employeeId: string, t = token) => http.get(coveragePath(employeeId), { token: t });

  /** Not covered: the detail says so for the clock's day (2026-11-22 in Kolkata), and what is on its way. */
  const NO_COVER = 'no cover today (2026-11-22)';
  const expectNotFound = async (
    employeeId: string,
    title: string,
    detail = title === 'Employee Not Covered' ? NO_COVER : '',
  ) => {
    const res = await lookup(employeeId);
    expect(res.status, title).to.equal(404);
    expect(res.body).to.deep.equal({
      type: 'NOT_FOUND',
      title,
      detail,
      instance: coveragePath(employeeId),
    });
  };

  it('answers Employee Not Covered for a known employee without any member row', async () => {
    await makePolicy(c.clientId);
    const e = await makeEmployee(c.clientId);
    await expectNotFound(e.id, 'Employee Not Covered');
  });

  it('returns a bare array with one entry, field by field, for an active row covering today', async () => {
    const ref = await makeReferenceData(c.clientId, {
      insurerName: 'Niva Bupa',
      category: 'Group Personal Accident',
    });
    const policy = await makePolicy(c.clientId, {
      reference: ref,
      policyNumber: 'GPA/2026/0007',
      type: 'POLICY_TYPE_INDIVIDUAL',
      coverageType: 'COVERAGE_TYPE_ES',
      startDate: '2026-04-01',
      endDate: '2027-03-31',
    });
    await sql('update policies set network_hospital_url = ? where id = ?', [
      'https://policy-net.example.com',
      policy.id,
    ]);
    const e = await makeEmployee(c.clientId);
    await makeMember(c.clientId, policy.id, e, {
      start: '2026-06-15',
      end: '2027-03-31',
      sumInsured: '500000.00',
      uhid: 'UHID-0007-A',
    });

    const res = await lookup(e.id);
    expect(res.status).to.equal(200);
    expect(Object.keys(res.body)).to.deep.equal(['payload']);
    expect(res.body.payload).to.be.an('array').with.length(1);
    const entry = res.body.payload[0];
    expect(Object.keys(entry)).to.have.members(ENTRY_FIELDS);
    const { pdf_url: pdfUrl, ...rest } = entry;
    expect(rest).to.deep.equal({
      policy_id: policy.id,
      policy_number: 'GPA/2026/0007',
      insurer_name: 'Niva Bupa',
      insurer_logo: 'https://logo.example.com/i.png',
      product_name: 'Group Care',
      category: 'Group Personal Accident',
      tpa_name: 'Medi Assist',
      type: 'POLICY_TYPE_INDIVIDUAL',
      coverage_type: 'COVERAGE_TYPE_ES',
      start_date: '2026-04-01',
      end_date: '2027-03-31',
      coverage_start_date: '2026-06-15',
      coverage_end_date: '2027-03-31',
      sum_insured: 500000,
      network_hospital_url: 'https://policy-net.example.com',
      uhid: 'UHID-0007-A',
    });
    expect(entry.sum_insured).to.be.a('number');
    const expires = NOW_S + 3600;
    expect(pdfUrl).to.be.a('string');
    expect(pdfUrl.startsWith(`${baseUrl}/v1/policy/coverage/${e.id}/health-card/${policy.id}.pdf?`)).to.equal(
      true,
    );
    expect(pdfUrl).to.match(new RegExp(`\\.pdf\\?expires=${expires}&signature=[0-9a-f]{64}$`));
    // The link names the ids and nothing personal.
    expect(pdfUrl).to.not.contain(e.name.split(' ')[1]);
    expect(pdfUrl).to.not.contain(e.employeeCode);
  });

  it('falls back to the insurer’s network hospital list, then to null, and gives uhid null until assigned', async () => {
    const policy = await makePolicy(c.clientId);
    const e = await makeEmployee(c.clientId);
    await makeMember(c.clientId, policy.id, e);
    await sql('update policies set network_hospital_url = null where id = ?', [policy.id]);
    await sql('update insurers set network_hospital_url = ? where id = ?', [
      'https://insurer-net.example.com',
      policy.insurerId,
    ]);

    let [entry] = (await lookup(e.id)).body.payload;
    expect(entry.network_hospital_url).to.equal('https://insurer-net.example.com');
    expect(entry.uhid).to.equal(null);
    expect(entry.sum_insured).to.equal(300000);

    await sql('update insurers set network_hospital_url = null where id = ?', [policy.insurerId]);
    [entry] = (await lookup(e.id)).body.payload;
    expect(entry).to.have.property('network_hospital_url', null);
  });

  it('lists one entry per covering policy, ordered by policy start date, and leaves out the others', async () => {
    const later = await makePolicy(c.clientId, {
      policyNumber: `B-${newId('policy')}`,
      startDate: '2026-07-01',
    });
    const earlier = await makePolicy(c.clientId, {
      policyNumber: `A-${newId('policy')}`,
      startDate: '2026-01-01',
    });
    const lapsed = await makePolicy(c.clientId);
    const future = await makePolicy(c.clientId);
    const e = await makeEmployee(c.clientId);
    await makeMember(c.clientId, later.id, e, {
      start: '2026-07-01',
      end: '2027-03-31',
      sumInsured: '500000.00',
    });
    await makeMember(c.clientId, earlier.id, e, { start: '2026-01-01', end: '2026-12-31' });
    await makeMember(c.clientId, lapsed.id, e, { status: 'inactive' });
    await makeMember(c.clientId, future.id, e, { start: '2026-12-01', end: '2027-03-31' });

    const res = await lookup(e.id);
    expect(res.status).to.equal(200);
    expect(res.body.payload.map((x: { policy_id: string }) => x.policy_id)).to.deep.equal([
      earlier.id,
      later.id,
    ]);
    expect(res.body.payload.map((x: { sum_insured: number }) => x.sum_insured)).to.deep.equal([
      300000, 500000,
    ]);
    const urls = res.body.payload.map((x: { pdf_url: string }) => x.pdf_url);
    expect(urls[0]).to.contain(`/health-card/${earlier.id}.pdf?`);
    expect(urls[1]).to.contain(`/health-card/${later.id}.pdf?`);
  });

  it('lists only ACTIVE policies: an active row on an inactive or suspended policy does not cover', async () => {
    const active = await makePolicy(c.clientId);
    const inactive = await makePolicy(c.clientId, { status: 'POLICY_STATUS_INACTIVE' });
    const suspended = await makePolicy(c.clientId, { status: 'POLICY_STATUS_SUSPENDED' });
    const e = await makeEmployee(c.clientId);
    for (const p of [active, inactive, suspended]) await makeMember(c.clientId, p.id, e);
    const res = await lookup(e.id);
    expect(res.status).to.equal(200);
    expect(res.body.payload.map((x: { policy_id: string }) => x.policy_id)).to.deep.equal([active.id]);

    const onlyLapsed = await makeEmployee(c.clientId);
    for (const p of [inactive, suspended]) await makeMember(c.clientId, p.id, onlyLapsed);
    await expectNotFound(onlyLapsed.id, 'Employee Not Covered');
  });

  it('answers Employee Not Covered for an inactive or suspended row, and for a row of a dependent only', async () => {
    const policy = await makePolicy(c.clientId);
    const inactive = await makeEmployee(c.clientId);
    await makeMember(c.clientId, policy.id, inactive, { status: 'inactive' });
    await expectNotFound(inactive.id, 'Employee Not Covered');

    const suspended = await makeEmployee(c.clientId);
    await makeMember(c.clientId, policy.id, suspended, { status: 'suspended' });
    await expectNotFound(suspended.id, 'Employee Not Covered');

    const parentOnly = await makeEmployee(c.clientId);
    const parent = await makeDependent(c.clientId, parentOnly.id, { relationship: 'PARENT' });
    await makeMember(c.clientId, policy.id, parentOnly, { dependentId: parent.id });
    await expectNotFound(parentOnly.id, 'Employee Not Covered');
  });

  it('answers Employee Not Covered once the coverage end date has passed (Asia/Kolkata day)', async () => {
    const own = fixedClock('2026-11-30T18:29:59Z'); // 23:59:59 on 2026-11-30 in Kolkata
    const moving = client((await stack().startApi({ clock: own })).url);
    const policy = await makePolicy(c.clientId);
    const e = await makeEmployee(c.clientId);
    await makeMember(c.clientId, policy.id, e, { start: '2026-04-01', end: '2026-11-30' });
    const get = () => moving.get(coveragePath(e.id), { token: c.token(['policy.all'], own) });

    const lastDay = await get();
    expect(lastDay.status).to.equal(200);
    expect(lastDay.body.payload[0].coverage_end_date).to.equal('2026-11-30');

    own.advance(1000); // 00:00:00 on 2026-12-01 in Kolkata, still 2026-11-30 in UTC
    const after = await get();
    expect(after.status).to.equal(404);
    expect(after.body).to.include({ type: 'NOT_FOUND', title: 'Employee Not Covered' });
  });

  it('covers from the coverage start date itself', async () => {
    const policy = await makePolicy(c.clientId);
    const e = await makeEmployee(c.clientId);
    await makeMember(c.clientId, policy.id, e, { start: '2026-11-22', end: '2027-03-31' });
    const res = await lookup(e.id);
    expect(res.status).to.equal(200);
    expect(res.body.payload).to.have.length(1);

    const tomorrow = await makeEmployee(c.clientId);
    await makeMember(c.clientId, policy.id, tomorrow, { start: '2026-11-23', end: '2027-03-31' });
    // Not a bare 404: the client reads when the cover starts.
    await expectNotFound(
      tomorrow.id,
      'Employee Not Covered',
      `${NO_COVER}; cover on policy ${policy.id} starts 2026-11-23`,
    );
  });

  it('names the ADDITION still waiting for the insurer when there is no cover yet', async () => {
    const policy = await makePolicy(c.clientId);
    const e = await makeEmployee(c.clientId);
    const id = await makeEndorsement(c.clientId, policy.id, {
      employeeId: e.id,
      status: 'ENDORSEMENT_STATUS_SENT_TO_INSURER',
      start: '2026-11-22',
      premium: '1000.00',
    });
    await expectNotFound(
      e.id,
      'Employee Not Covered',
      `${NO_COVER}; ADDITION ${id} is ENDORSEMENT_STATUS_SENT_TO_INSURER: cover shows once the insurer approves it`,
    );
  });

  it('answers an unknown id and another client’s covered employee exactly alike: Employee Not Found', async () => {
    const other = await makeClient();
    const otherPolicy = await makePolicy(other.clientId);
    const foreign = await makeEmployee(other.clientId);
    await makeMember(other.clientId, otherPolicy.id, foreign);
    expect(
      (await http.get(coveragePath(foreign.id), { token: other.token(['policy.get'], clock) })).status,
    ).to.equal(200);

    for (const id of [foreign.id, newId('employee'), 'not-an-id', 'emp_']) {
      await expectNotFound(id, 'Employee Not Found');
    }
  });

  it('needs policy.get or policy.all (D2)', async () => {
    const policy = await makePolicy(c.clientId);
    const e = await makeEmployee(c.clientId);
    await makeMember(c.clientId, policy.id, e);

    expect((await lookup(e.id, c.token(['policy.all'], clock))).status).to.equal(200);
    const denied = await lookup(e.id, c.token(['policy.list', 'employee.all'], clock));
    expect(denied.status).to.equal(403);
    expect(denied.body).to.include({ type: 'FORBIDDEN', title: 'Insufficient Scope' });
    const anonymous = await http.get(coveragePath(e.id));
    expect(anonymous.status).to.equal(401);
    expect(anonymous.body).to.include({ type: 'UNAUTHORIZED' });
  });
});
