import { expect } from 'chai';
import { addDays } from '../../domain/dates.js';
import { systemClock, today } from '../../domain/clock.js';
import { inclusiveDays } from '../../domain/premium.js';
import { makeDependent, makeMember, sql } from '../support/factories.js';
import { checkCdLedgersAfterEachTest } from '../support/cd-ledger-check.js';
import {
  cdBalance,
  decide,
  ledger,
  makeWorld,
  memberRows,
  recordManualAdapter,
  waitFor,
  waitForStatus,
  type World,
} from './endorsement-support.js';

/** ₹3,650 a year at the 300000 slab over the 365-day policy year: ₹10 a day, one life. */
const perDay = (start: string, end: string) => `${inclusiveDays(start, end) * 10}.00`;

async function coveredWorld(): Promise<World> {
  const world = await makeWorld({ policy: { coverageType: 'COVERAGE_TYPE_ESCP', cdBalance: '50000.00' } });
  await makeMember(world.client.clientId, world.policy.id, world.employee);
  return world;
}

const addDependent = (world: World, body: Record<string, unknown>, token = world.token) =>
  world.api.post(`/v1/client/employees/${world.employee.id}/dependents`, {
    token,
    body: { name: 'Asha', gender: 'GENDER_FEMALE', ...body },
  });

describe('dependent endorsements (D16)', () => {
  checkCdLedgersAfterEachTest();
  const on = today(systemClock);

  it('a newborn added to a covered employee is submitted alone, priced for one life and enrolled alone with its UHID', async () => {
    const { adapter, restore } = recordManualAdapter();
    try {
      const world = await coveredWorld();
      const spouse = await makeDependent(world.client.clientId, world.employee.id, {
        relationship: 'SPOUSE',
      });
      await makeMember(world.client.clientId, world.policy.id, world.employee, { dependentId: spouse.id });
      const born = addDays(on, -5);
      const res = await addDependent(world, { relationship: 'CHILD', date_of_birth: born });
      expect(res.status).to.equal(200);
      const { dependent_id: dependentId, endorsements } = res.body.payload;
      expect(endorsements).to.have.length(1);
      expect(endorsements[0]).to.include({ policy_id: world.policy.id, reason: null });
      const id = endorsements[0].endorsement_id as string;

      await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
      const people = await waitFor(async () => adapter.people.get(id), Boolean, 'the submission');
      expect(people).to.deep.equal(['CHILD']);
      const got = await world.api.get(`/v1/policy/endorsements/${id}`, { token: world.token });
      expect(got.body.payload.endorsement).to.include({
        dependent_id: dependentId,
        type: 'ENDORSEMENT_TYPE_ADDITION',
        coverage_start_date: born,
        coverage_end_date: '2027-03-31',
        premium_impact: Number(perDay(born, '2027-03-31')),
        sum_insured: 300000,
      });

      await decide(id, { decision: 'APPROVED', insurer_member_id: 'INS-C', uhid: 'UHID-CHILD' });
      await waitForStatus(id, 'ENDORSEMENT_STATUS_APPROVED');
      const enrolled = (await memberRows(world.policy.id)).filter((m) => m.endorsement_id === id);
      expect(enrolled).to.have.length(1);
      expect(enrolled[0]).to.include({ dependent_id: dependentId, uhid: 'UHID-CHILD', status: 'active' });
      expect(await memberRows(world.policy.id)).to.have.length(3);
      const premium = perDay(born, '2027-03-31');
      expect(await ledger(world.policy.id)).to.deep.equal([
        { endorsement_id: id, amount: `-${premium}`, balance_after: (50000 - Number(premium)).toFixed(2) },
      ]);
      expect(await cdBalance(world.policy.id)).to.equal((50000 - Number(premium)).toFixed(2));
    } finally {
      restore();
    }
  });

  it('answers each eligibility breach as a 400 naming the rule, and writes nothing', async () => {
    const world = await coveredWorld();
    const cases: [Record<string, unknown>, string][] = [
      [{ relationship: 'SPOUSE', date_of_birth: '1995-01-01' }, 'LIFE_EVENT_DATE_REQUIRED'],
      [
        { relationship: 'SPOUSE', date_of_birth: '1995-01-01', event_date: addDays(on, -31) },
        'LIFE_EVENT_WINDOW',
      ],
      [{ relationship: 'CHILD', date_of_birth: addDays(on, -60) }, 'LIFE_EVENT_WINDOW'],
      [{ relationship: 'CHILD', date_of_birth: '1990-01-01', event_date: on }, 'CHILD_AGE_LIMIT'],
      [{ relationship: 'PARENT', date_of_birth: '1940-01-01' }, 'PARENT_AGE_LIMIT'],
    ];
    for (const [body, rule] of cases) {
      const res = await addDependent(world, body);
      expect(res.status, rule).to.equal(400);
      expect(res.body).to.include({ type: 'DEPENDENT_NOT_ELIGIBLE', title: 'Dependent Not Eligible' });
      expect(res.body.detail).to.match(new RegExp(`^${rule}: `));
    }
    const [{ n }] = await sql('select count(*)::int as n from dependents where employee_id = ?', [
      world.employee.id,
    ]);
    expect(n).to.equal(0);
  });

  it("refuses a third child and parents-in-law beside parents, naming the rule, unless the policy's rules allow it", async () => {
    const world = await coveredWorld();
    const { clientId } = world.client;
    await makeDependent(clientId, world.employee.id, { relationship: 'CHILD', dateOfBirth: '2018-01-01' });
    await makeDependent(clientId, world.employee.id, { relationship: 'CHILD', dateOfBirth: '2020-01-01' });
    await makeDependent(clientId, world.employee.id, { relationship: 'PARENT', dateOfBirth: '1960-01-01' });
    const third = await addDependent(world, { relationship: 'CHILD', date_of_birth: addDays(on, -1) });
    expect(third.status).to.equal(400);
    expect(third.body.detail).to.equal('MAX_CHILDREN: relationship: the policy covers at most 2 children');
    const inLaw = await addDependent(world, { relationship: 'PARENT_IN_LAW', date_of_birth: '1962-01-01' });
    expect(inLaw.status).to.equal(400);
    expect(inLaw.body.detail).to.match(/^PARENTS_AND_PARENTS_IN_LAW: /);

    // The policy's own rules (its reference data) override D16's defaults.
    await sql(`update policies set eligibility = '{"maxChildren": 3}'::jsonb where id = ?`, [
      world.policy.id,
    ]);
    const allowed = await addDependent(world, { relationship: 'CHILD', date_of_birth: addDays(on, -1) });
    expect(allowed.status).to.equal(200);
    const id = allowed.body.payload.endorsements[0].endorsement_id as string;
    await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
  });

  it('without the endorsement scope the dependent is added and the ADDITION is created through the API with dependent_id', async () => {
    const world = await coveredWorld();
    const token = world.client.token(['employee.all']);
    const res = await addDependent(world, { relationship: 'PARENT', date_of_birth: '1960-05-05' }, token);
    expect(res.status).to.equal(200);
    const { dependent_id: dependentId, endorsements } = res.body.payload;
    expect(endorsements[0]).to.include({ policy_id: world.policy.id, endorsement_id: null });
    expect(endorsements[0].reason).to.match(/policy\.all/);

    const unknown = await world.api.post('/v1/policy/endorsements', {
      token: world.token,
      body: {
        employee_id: world.employee.id,
        type: 'ADDITION',
        dependent_id: 'dep_unknown',
        coverage_start_date: on,
        coverage_end_date: '2027-03-31',
      },
    });
    expect(unknown.status).to.equal(404);
    expect(unknown.body.title).to.equal('Dependent Not Found');

    const created = await world.api.post('/v1/policy/endorsements', {
      token: world.token,
      body: {
        employee_id: world.employee.id,
        type: 'ADDITION',
        dependent_id: dependentId,
        coverage_start_date: on,
        coverage_end_date: '2027-03-31',
      },
    });
    expect(created.status).to.equal(200);
    const id = created.body.payload.endorsement_id;
    await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
    const again = await addDependent(world, { relationship: 'PARENT', date_of_birth: '1960-05-05' });
    expect(again.body.payload.endorsements[0].reason).to.match(/^IN_PROGRESS: /);
    await decide(id, { decision: 'APPROVED', insurer_member_id: 'INS-P', uhid: 'UHID-P' });
    await waitForStatus(id, 'ENDORSEMENT_STATUS_APPROVED');
    const rows = (await memberRows(world.policy.id)).map((m) => m.dependent_id);
    expect(rows).to.have.members([null, dependentId]);
  });

  it("names why no ADDITION started when the employee's policy covers no such relationship", async () => {
    const world = await makeWorld({ policy: { coverageType: 'COVERAGE_TYPE_ES', cdBalance: '50000.00' } });
    await makeMember(world.client.clientId, world.policy.id, world.employee);
    const res = await addDependent(world, { relationship: 'CHILD', date_of_birth: addDays(on, -5) });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.payload.message).to.equal('Dependent added successfully');
    expect(res.body.payload.endorsements).to.deep.equal([
      {
        policy_id: world.policy.id,
        endorsement_id: null,
        reason: "the policy's coverage type COVERAGE_TYPE_ES does not cover a CHILD: no endorsement",
      },
    ]);
    const [{ n }] = await sql('select count(*)::int as n from endorsements where employee_id = ?', [
      world.employee.id,
    ]);
    expect(n).to.equal(0);
  });

  it('refuses a dependent ADDITION for an employee not covered on the policy', async () => {
    const world = await makeWorld({ policy: { coverageType: 'COVERAGE_TYPE_ESCP', cdBalance: '50000.00' } });
    const dep = await makeDependent(world.client.clientId, world.employee.id, { relationship: 'PARENT' });
    const res = await world.api.post('/v1/policy/endorsements', {
      token: world.token,
      body: {
        employee_id: world.employee.id,
        policy_id: world.policy.id,
        type: 'ADDITION',
        dependent_id: dep.id,
        coverage_start_date: on,
        coverage_end_date: '2027-03-31',
      },
    });
    expect(res.status).to.equal(409);
    expect(res.body.detail).to.match(/employee is not active on this policy/);
  });
});
