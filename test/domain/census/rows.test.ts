import { expect } from 'chai';
import {
  CENSUS_COLUMNS,
  headerFields,
  MalformedCensus,
  parseCensusRecord,
  recordOf,
} from '../../../domain/census/rows.js';
import {
  CensusPlanner,
  forecastCensusCd,
  planTotals,
  type CensusSnapshot,
} from '../../../domain/census/plan.js';

const POLICY = {
  id: 'pol_a',
  policy_number: 'A/1',
  start_date: '2026-04-01',
  end_date: '2027-03-31',
  slabs: [
    { sum_insured: '300000.00', annual_premium: '3650.00' },
    { sum_insured: '500000.00', annual_premium: '7300.00' },
  ],
  default_sum_insured: '300000.00',
  insurer_code: 'INS',
  cd_available: '1000.00',
  coverage_type: 'COVERAGE_TYPE_ESCP' as const,
  eligibility: {},
};

const TODAY = '2026-11-24';

const snapshot = (): CensusSnapshot => ({
  policies: [POLICY],
  employees: [
    {
      id: 'emp_covered',
      employee_code: 'C1',
      email_key: 'c1@example.com',
      cover: [{ policy_id: 'pol_a', sum_insured: '300000.00', start: '2026-04-01', end: '2027-03-31' }],
      open: [],
    },
  ],
});

const row = (r: Record<string, string>, n = 1) => {
  const parsed = parseCensusRecord(n, r);
  if (!('row' in parsed)) throw new Error(JSON.stringify(parsed.errors));
  return parsed.row;
};

describe('census (domain/census/rows.ts)', () => {
  it('matches headers by the templates’ names or field names, whatever the case and spacing', () => {
    const fields = headerFields([' employee CODE ', 'action', 'Effective_Date', '']);
    expect(fields).to.deep.equal(['employee_code', 'action', 'effective_date', null]);
    expect(recordOf(fields, ['E1', 'add', '2026-12-01', 'ignored'])).to.deep.equal({
      employee_code: 'E1',
      action: 'add',
      effective_date: '2026-12-01',
    });
    expect(headerFields(CENSUS_COLUMNS.map((c) => c.header))).to.have.length(CENSUS_COLUMNS.length);
  });

  it('refuses an unknown column, a column twice and a header without the needed columns', () => {
    expect(() => headerFields(['Employee Code', 'Acton', 'Effective Date'])).to.throw(
      MalformedCensus,
      /Acton/,
    );
    expect(() => headerFields(['Employee Code', 'employee_code', 'Action', 'Effective Date'])).to.throw(
      /twice/,
    );
    expect(() => headerFields(['Employee Code', 'Action'])).to.throw(/effective_date/);
  });

  it('reports every bad cell of a row, by field', () => {
    const parsed = parseCensusRecord(3, {
      action: 'hire',
      effective_date: '2026-02-30',
      email: 'nope',
      gender: 'x',
      sum_insured: '1.234',
      policy_id: 'P1',
    });
    expect('errors' in parsed && parsed.errors.map((e) => e.field)).to.deep.equal([
      'employee_code',
      'action',
      'effective_date',
      'email',
      'gender',
      'sum_insured',
      'policy_id',
    ]);
  });
});

describe('census rows and the text rules (domain/text.ts)', () => {
  it('refuses an employee code or a name starting as a formula, or holding invisible characters', () => {
    const base = { action: 'add', effective_date: '2026-10-01' };
    const errors = (r: Record<string, string>) => {
      const parsed = parseCensusRecord(2, { ...base, ...r });
      return 'errors' in parsed ? parsed.errors : [];
    };
    expect(errors({ employee_code: '=1+2' })).to.deep.equal([
      { field: 'employee_code', reason: 'must not start with =, +, - or @' },
    ]);
    expect(errors({ employee_code: 'E\u200b1' })).to.deep.equal([
      { field: 'employee_code', reason: 'must not contain invisible characters' },
    ]);
    expect(errors({ employee_code: 'E1', name: '=HYPERLINK("http://evil.example","x")' })).to.deep.equal([
      { field: 'name', reason: 'must not start with =, +, - or @' },
    ]);
    expect(errors({ employee_code: 'E1', name: 'Asha\u200fRao' })).to.deep.equal([
      { field: 'name', reason: 'must not contain bidirectional formatting characters' },
    ]);
    expect(errors({ employee_code: 'E-1', name: 'Asha Rao-Iyer' })).to.deep.equal([]);
  });
});

describe('census plan (domain/census/plan.ts)', () => {
  it('plans an addition with D7’s routing and pro-rata premium, and a modification of a covered employee', () => {
    const planner = new CensusPlanner(snapshot(), TODAY);
    const add = planner.plan(
      row({
        employee_code: 'N1',
        name: 'A',
        email: 'n1@example.com',
        phone: '+919800000000',
        date_of_birth: '1990-01-01',
        gender: 'female',
        action: 'add',
        effective_date: '2026-10-01',
      }),
    );
    expect(add).to.deep.include({ status: 'ok', creates_employee: true });
    // 3650 a year over 365 days, 182 days from 2026-10-01 to 2027-03-31: 1820.00.
    expect(add.endorsement).to.deep.equal({
      type: 'ENDORSEMENT_TYPE_ADDITION',
      policy_id: 'pol_a',
      coverage_start_date: '2026-10-01',
      coverage_end_date: '2027-03-31',
      sum_insured: '300000.00',
      premium_impact: '1820.00',
      pro_rata_days: 182,
    });
    const modify = planner.plan(
      row({ employee_code: 'C1', action: 'modify', effective_date: '2026-10-01', sum_insured: '500000' }, 2),
    );
    expect(modify.endorsement?.type).to.equal('ENDORSEMENT_TYPE_MODIFICATION');
    const totals = planTotals([add, modify], [POLICY]);
    expect(totals.endorsements).to.deep.equal({
      ENDORSEMENT_TYPE_ADDITION: 1,
      ENDORSEMENT_TYPE_DELETION: 0,
      ENDORSEMENT_TYPE_MODIFICATION: 1,
    });
    expect(totals.cd).to.deep.equal([
      { policy_id: 'pol_a', available: '1000.00', debit: '3640.00', credit: '0.00', shortfall: '2640.00' },
    ]);

    // D17: the CD forecast in file order. ₹1,000 available does not cover the ADDITION's ₹1,820, so
    // it would wait, and the MODIFICATION queues behind it; with ₹5,000 both hold, one after the other.
    const short = forecastCensusCd([add, modify], [POLICY]);
    expect(short.map((p) => p.endorsement?.cd)).to.deep.equal([
      { hold: '1820.00', available_after: '1000.00', waits_for_funds: true },
      { hold: '1820.00', available_after: '1000.00', waits_for_funds: true },
    ]);
    expect(planTotals(short, [POLICY]).cd[0]).to.include({ available_after: '1000.00', waiting: 2 });
    const funded = forecastCensusCd([add, modify], [{ ...POLICY, cd_available: '5000.00' }]);
    expect(funded.map((p) => p.endorsement?.cd)).to.deep.equal([
      { hold: '1820.00', available_after: '3180.00', waits_for_funds: false },
      { hold: '1820.00', available_after: '1360.00', waits_for_funds: false },
    ]);
    // A policy whose queue already waits makes every new hold wait behind it.
    const queued = forecastCensusCd([add], [{ ...POLICY, cd_available: '5000.00', cd_waiting: true }]);
    expect(queued[0]!.endorsement?.cd).to.include({ waits_for_funds: true, available_after: '5000.00' });
    // Each forecast is of copies: the plans given keep no `cd` of their own.
    expect([add.endorsement?.cd, modify.endorsement?.cd]).to.deep.equal([undefined, undefined]);
  });

  it('refuses what D7 refuses, a new employee without details, and a second row for the same employee and policy', () => {
    const planner = new CensusPlanner(snapshot(), TODAY);
    const covered = planner.plan(
      row({ employee_code: 'C1', action: 'add', effective_date: '2026-10-01', policy_id: 'pol_a' }),
    );
    expect(covered.errors).to.deep.equal([
      { field: 'row', reason: 'the employee is already covered by this policy', reveals: 'coverage' },
    ]);
    const bare = planner.plan(row({ employee_code: 'N2', action: 'add', effective_date: '2026-10-01' }));
    expect(bare.errors.map((e) => e.field)).to.deep.equal([
      'name',
      'email',
      'phone',
      'date_of_birth',
      'gender',
    ]);
    const unknown = planner.plan(
      row({ employee_code: 'N3', action: 'delete', effective_date: '2026-10-01' }),
    );
    expect(unknown.errors.map((e) => e.field)).to.deep.equal(['employee_code']);
    const first = planner.plan(
      row({ employee_code: 'C1', action: 'delete', effective_date: '2026-12-31', policy_id: 'pol_a' }, 4),
    );
    expect(first.status).to.equal('ok');
    expect(first.endorsement?.premium_impact.startsWith('-')).to.equal(true);
    const second = planner.plan(
      row({ employee_code: 'C1', action: 'delete', effective_date: '2027-01-31' }, 5),
    );
    expect(second.errors[0]!.reason).to.match(/row 4 of this census/);
  });
});

describe('census dependents’ rows (domain/census/dependents.ts)', () => {
  const withFamily = (): CensusSnapshot => {
    const s = snapshot();
    s.employees[0]!.dependents = [
      {
        id: 'dep_wife',
        relationship: 'SPOUSE',
        name: 'Asha Rao',
        date_of_birth: '1990-05-05',
        event_date: null,
        cover: [{ policy_id: 'pol_a', sum_insured: null, start: '2026-04-01', end: '2027-03-31' }],
      },
      {
        id: 'dep_father',
        relationship: 'PARENT',
        name: 'Ravi Rao',
        date_of_birth: '1960-01-01',
        event_date: null,
        cover: [],
      },
    ];
    s.employees.push({
      id: 'emp_bare',
      employee_code: 'U1',
      email_key: 'u1@example.com',
      cover: [],
      open: [],
    });
    return s;
  };
  const dep = (o: Record<string, string>, n = 1) =>
    row({ employee_code: 'C1', action: 'add', effective_date: '2026-12-01', gender: 'male', ...o }, n);

  it('plans a dependent joining a covered employee: the dependent and its ADDITION for one life', () => {
    const plan = new CensusPlanner(withFamily(), TODAY).plan(
      dep({ relationship: 'son', name: 'Kiran Rao', date_of_birth: '2026-11-10' }),
    );
    expect(plan).to.deep.include({ status: 'ok', adds_dependent: true, creates_employee: false });
    // One life at the employee's slab: 3650 a year, 121 days from 2026-12-01 to 2027-03-31.
    expect(plan.endorsement).to.deep.equal({
      type: 'ENDORSEMENT_TYPE_ADDITION',
      policy_id: 'pol_a',
      coverage_start_date: '2026-12-01',
      coverage_end_date: '2027-03-31',
      sum_insured: '300000.00',
      premium_impact: '1210.00',
      pro_rata_days: 121,
    });
  });

  it('lists every eligibility breach as a row error naming the rule and its field', () => {
    const planner = new CensusPlanner(withFamily(), TODAY);
    const old = planner.plan(dep({ relationship: 'son', name: 'Old Son', date_of_birth: '1999-01-01' }));
    expect(old.status).to.equal('error');
    expect(old.errors).to.deep.equal([
      { field: 'date_of_birth', reason: 'CHILD_AGE_LIMIT: a child is covered up to age 25' },
      {
        field: 'event_date',
        reason:
          "LIFE_EVENT_WINDOW: a child joins within 30 days of the birth or adoption unless the policy's mid-term window is open",
      },
    ]);
    const inLaw = planner.plan(
      dep({ relationship: 'mother-in-law', name: 'Meera Iyer', date_of_birth: '1962-02-02' }, 2),
    );
    expect(inLaw.errors.map((e) => e.reason.split(':')[0])).to.deep.equal(['PARENTS_AND_PARENTS_IN_LAW']);
    expect(inLaw.endorsement).to.equal(null);
  });

  it('counts earlier rows’ dependents for the family rules, and adds to an uncovered employee without an endorsement', () => {
    const planner = new CensusPlanner(withFamily(), TODAY);
    const child = (name: string, n: number) =>
      planner.plan(
        dep({ employee_code: 'U1', relationship: 'daughter', name, date_of_birth: '2020-01-01' }, n),
      );
    const first = child('One', 1);
    expect(first).to.deep.include({ status: 'ok', adds_dependent: true, endorsement: null });
    expect(child('Two', 2).status).to.equal('ok');
    expect(child('Three', 3).errors.map((e) => e.reason.split(':')[0])).to.deep.equal(['MAX_CHILDREN']);
  });

  it('plans a DELETION of a covered dependent, and refuses an unknown one (also of an employee the census creates)', () => {
    const planner = new CensusPlanner(withFamily(), TODAY);
    const del = planner.plan(
      dep({ action: 'delete', relationship: 'spouse', name: 'asha rao', date_of_birth: '1990-05-05' }),
    );
    expect(del.status).to.equal('ok');
    expect(del.endorsement).to.include({
      type: 'ENDORSEMENT_TYPE_DELETION',
      coverage_end_date: '2026-12-01',
    });
    expect(del.endorsement?.premium_impact.startsWith('-')).to.equal(true);
    const nobody = planner.plan(
      dep({ action: 'delete', relationship: 'spouse', name: 'Nobody', date_of_birth: '1990-05-05' }, 2),
    );
    expect(nobody.errors.map((e) => e.field)).to.deep.equal(['name']);
    planner.plan(row({ ...NEW_NINE }, 3));
    const early = planner.plan(
      dep(
        {
          employee_code: 'N9',
          action: 'delete',
          relationship: 'spouse',
          name: 'S',
          date_of_birth: '1990-01-01',
        },
        4,
      ),
    );
    expect(early.errors.map((e) => e.field)).to.deep.equal(['name']);
  });

  it('plans dependents of an employee an earlier row creates: added to them, joining their ADDITION, family rules counted', () => {
    const planner = new CensusPlanner(withFamily(), TODAY);
    const joiner = planner.plan(row({ ...NEW_NINE }, 3));
    expect(joiner).to.deep.include({ status: 'ok', creates_employee: true, employee_row: null });
    const child = (name: string, n: number) =>
      planner.plan(dep({ employee_code: 'N9', relationship: 'son', name, date_of_birth: '2020-01-01' }, n));
    const first = child('One', 4);
    expect(first).to.deep.include({
      status: 'ok',
      adds_dependent: true,
      creates_employee: false,
      employee_row: 3,
      endorsement: null,
    });
    expect(child('Two', 5).status).to.equal('ok');
    expect(child('Three', 6).errors.map((e) => e.reason.split(':')[0])).to.deep.equal(['MAX_CHILDREN']);
    const before = planner.plan(
      dep({ employee_code: 'N10', relationship: 'son', name: 'Early', date_of_birth: '2020-01-01' }, 7),
    );
    expect(before.errors).to.deep.equal([{ field: 'employee_code', reason: 'no employee has this code' }]);
  });
});

const NEW_NINE = {
  employee_code: 'N9',
  name: 'New Nine',
  email: 'n9@example.com',
  phone: '+919800000000',
  date_of_birth: '1990-01-01',
  gender: 'female',
  action: 'add',
  effective_date: '2026-12-01',
};

describe('census rows that update or exit an employee (domain/census/plan.ts)', () => {
  const withDetails = (): CensusSnapshot => {
    const s = snapshot();
    s.policies.push({ ...POLICY, id: 'pol_b', policy_number: 'B/1' });
    s.employees[0]!.cover.push({
      policy_id: 'pol_b',
      sum_insured: '300000.00',
      start: '2026-06-01',
      end: '2027-03-31',
    });
    s.employees[0]!.details = {
      name: 'Chitra Rao',
      email: 'c1@example.com',
      phone_number: '+919800000001',
      date_of_birth: '1990-01-01',
      gender: 'FEMALE',
      status: 'ACTIVE',
    };
    s.employees.push({
      id: 'emp_other',
      employee_code: 'O1',
      email_key: 'o1@example.com',
      cover: [],
      open: [],
    });
    return s;
  };
  const c1 = (o: Record<string, string>, n = 1) =>
    row(
      {
        employee_code: 'C1',
        action: 'modify',
        effective_date: '2026-12-01',
        sum_insured: '500000',
        policy_id: 'pol_a',
        ...o,
      },
      n,
    );

  it('updates a known employee whose row restates details differently; empty cells and equal ones change nothing', () => {
    const planner = new CensusPlanner(withDetails(), TODAY);
    const same = planner.plan(c1({ name: 'Chitra Rao', gender: 'f' }));
    expect(same).to.deep.include({ status: 'ok', updates_employee: false });
    const renamed = new CensusPlanner(withDetails(), TODAY).plan(c1({ name: 'Chitra R. Rao' }));
    expect(renamed).to.deep.include({ status: 'ok', updates_employee: true });
    expect(renamed.endorsement?.type).to.equal('ENDORSEMENT_TYPE_MODIFICATION');
    expect(planTotals([same, renamed], [POLICY]).employees_updated).to.equal(1);
    const taken = new CensusPlanner(withDetails(), TODAY).plan(c1({ email: 'O1@example.com' }));
    expect(taken.errors).to.deep.equal([
      { field: 'email', reason: 'is already the official e-mail of another employee', reveals: 'employees' },
    ]);
  });

  it('plans a delete row without a policy as an exit with a DELETION per covering policy; with one, that policy only', () => {
    const exit = new CensusPlanner(withDetails(), TODAY).plan(
      row({ employee_code: 'C1', action: 'delete', effective_date: '2026-12-31' }),
    );
    expect(exit).to.deep.include({ status: 'ok', endorsement: null });
    expect(exit.exit).to.deep.include({ date_of_leaving: '2026-12-31', mode: 'automatic' });
    expect(
      exit.exit!.deletions.map((d) => [d.policy_id, d.type, d.coverage_start_date, d.coverage_end_date]),
    ).to.deep.equal([
      ['pol_a', 'ENDORSEMENT_TYPE_DELETION', '2026-04-01', '2026-12-31'],
      ['pol_b', 'ENDORSEMENT_TYPE_DELETION', '2026-06-01', '2026-12-31'],
    ]);
    const totals = planTotals([exit], withDetails().policies);
    expect(totals).to.deep.include({ exits: 1 });
    expect(totals.endorsements.ENDORSEMENT_TYPE_DELETION).to.equal(2);
    expect(totals.cd.map((c) => c.policy_id)).to.deep.equal(['pol_a', 'pol_b']);
    const one = new CensusPlanner(withDetails(), TODAY).plan(
      row({ employee_code: 'C1', action: 'delete', effective_date: '2026-12-31', policy_id: 'pol_b' }),
    );
    expect(one).to.deep.include({ status: 'ok', exit: null });
    expect(one.endorsement).to.include({ type: 'ENDORSEMENT_TYPE_DELETION', policy_id: 'pol_b' });
  });

  it('in the proposed exit mode lists the DELETIONs without counting them; an uncovered employee cannot exit by census', () => {
    const proposed = { ...withDetails(), exit_mode: 'proposed' as const };
    const planner = new CensusPlanner(proposed, TODAY);
    const exit = planner.plan(row({ employee_code: 'C1', action: 'delete', effective_date: '2026-12-31' }));
    expect(exit.exit).to.deep.include({ mode: 'proposed' });
    expect(exit.exit!.deletions).to.have.length(2);
    const totals = planTotals([exit], proposed.policies);
    expect(totals.endorsements.ENDORSEMENT_TYPE_DELETION).to.equal(0);
    expect(totals.cd).to.deep.equal([]);
    const bare = planner.plan(
      row({ employee_code: 'O1', action: 'delete', effective_date: '2026-12-31' }, 2),
    );
    expect(bare.errors).to.deep.equal([
      {
        field: 'policy_id',
        reason: 'the employee is not covered by an active policy of the client',
        reveals: 'coverage',
      },
    ]);
  });
});
