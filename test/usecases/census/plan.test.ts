import { expect } from 'chai';
import { TenantScope } from '../../../data/scope.js';
import { CENSUS_NAMES_PER_READ, planCensus } from '../../../usecases/census/census.js';
import { census, newJoiner, postUncoveredAddition, type CensusRowIn } from '../../support/census.js';
import { makeDependent, makeMember } from '../../support/factories.js';
import { stack } from '../../support/stack.js';

const TODAY = '2026-11-24';

describe('census planning reads (usecases/census/census.ts)', () => {
  it('finds a stored dependent named by a row after the read that named their employee', async () => {
    const w = await census();
    const wife = await makeDependent(w.clientId, w.covered.id, {
      name: 'Asha Census',
      relationship: 'SPOUSE',
      dateOfBirth: '1991-03-03',
    });
    await makeMember(w.clientId, w.policyId, { id: w.covered.id, name: 'Covered' }, { dependentId: wife.id });
    // Row 1 names the employee in the first read; the joiners (a code and an e-mail each) fill it and
    // the next, so the spouse's row comes in a third read, sent while the second may still be on the
    // database (CENSUS_READS_IN_FLIGHT), which must still find her.
    const joiners = Array.from({ length: CENSUS_NAMES_PER_READ + 10 }, (_, i) =>
      newJoiner(`P-${i}-${w.clientId.slice(-6)}`),
    );
    const rows: CensusRowIn[] = [
      {
        employee_code: w.covered.employeeCode,
        action: 'add',
        effective_date: '2026-12-01',
        policy_id: w.policyId,
      },
      ...joiners,
      {
        employee_code: w.covered.employeeCode,
        name: 'ASHA CENSUS',
        date_of_birth: '1991-03-03',
        gender: 'female',
        relationship: 'spouse',
        action: 'delete',
        effective_date: '2027-01-31',
      },
    ];
    const scope = TenantScope.of(stack().orm.em, w.clientId);
    const plan = await planCensus(scope, { kind: 'json', rows }, TODAY);

    const [first] = plan.rows;
    expect(first!.errors).to.deep.equal([
      { field: 'row', reason: 'the employee is already covered by this policy', reveals: 'coverage' },
    ]);
    const spouse = plan.rows.at(-1)!;
    expect(spouse.errors).to.deep.equal([]);
    expect(spouse.endorsement).to.include({
      type: 'ENDORSEMENT_TYPE_DELETION',
      policy_id: w.policyId,
      coverage_end_date: '2027-01-31',
    });
    expect(plan.totals).to.include({ rows: rows.length, ok: rows.length - 1, errors: 1 });
  });

  it('reads what it names: an open endorsement by code, an e-mail another employee holds', async () => {
    const w = await census();
    const res = await postUncoveredAddition(w);
    expect(res.status).to.equal(200);
    const open = res.body.payload.endorsement_id as string;
    const joiner = newJoiner(`Q-${w.clientId.slice(-6)}`, { email: w.covered.email.toUpperCase() });
    const rows: CensusRowIn[] = [
      { employee_code: w.uncovered.employeeCode, action: 'add', effective_date: '2026-12-01' },
      joiner,
    ];
    const scope = TenantScope.of(stack().orm.em, w.clientId);
    const plan = await planCensus(scope, { kind: 'json', rows }, TODAY);

    expect(plan.rows.map((r) => r.errors)).to.deep.equal([
      [
        {
          field: 'row',
          reason: `endorsement ${open} is still open for this employee and policy`,
          reveals: 'coverage',
        },
      ],
      [
        {
          field: 'email',
          reason: 'is already the official e-mail of another employee',
          reveals: 'employees',
        },
      ],
    ]);
    expect(plan.totals).to.include({ rows: 2, ok: 0, errors: 2 });
  });

  it('compares the details a row restates with the stored ones, read in a later read than the employee', async () => {
    const w = await census();
    // Row 1 names the uncovered employee without restating details; the joiners fill that read, so the
    // row renaming them comes in a later read, the one that must bring their stored details.
    const joiners = Array.from({ length: CENSUS_NAMES_PER_READ / 2 + 10 }, (_, i) =>
      newJoiner(`R-${i}-${w.clientId.slice(-6)}`),
    );
    const rows: CensusRowIn[] = [
      { employee_code: w.uncovered.employeeCode, action: 'add', effective_date: '2026-13-01' },
      ...joiners,
      {
        employee_code: w.uncovered.employeeCode,
        name: 'Renamed In Census',
        action: 'add',
        effective_date: '2026-12-01',
        policy_id: w.policyId,
      },
    ];
    const scope = TenantScope.of(stack().orm.em, w.clientId);
    const plan = await planCensus(scope, { kind: 'json', rows }, TODAY);

    expect(plan.rows[0]!.errors).to.deep.equal([
      { field: 'effective_date', reason: 'must be a real calendar date in YYYY-MM-DD form' },
    ]);
    const renamed = plan.rows.at(-1)!;
    expect(renamed).to.include({ status: 'ok', creates_employee: false, updates_employee: true });
    expect(renamed.endorsement).to.include({ type: 'ENDORSEMENT_TYPE_ADDITION', policy_id: w.policyId });
    expect(plan.totals).to.include({ employees_created: joiners.length, employees_updated: 1, errors: 1 });
  });

  it("names a failed row's employee too: an existing employee's add row is not asked for a new one's details", async () => {
    const w = await census();
    // No other row names the employee: the failed row's own code is what the read must find.
    const rows: CensusRowIn[] = [
      {
        employee_code: w.uncovered.employeeCode,
        action: 'add',
        effective_date: '2026-13-01',
        policy_id: w.policyId,
      },
      { employee_code: `NEW-${w.clientId.slice(-6)}`, action: 'add', effective_date: '2026-13-01' },
    ];
    const scope = TenantScope.of(stack().orm.em, w.clientId);
    const plan = await planCensus(scope, { kind: 'json', rows }, TODAY);

    const dateError = { field: 'effective_date', reason: 'must be a real calendar date in YYYY-MM-DD form' };
    const [existing, joiner] = plan.rows.map((r) => r.errors);
    expect(existing).to.deep.equal([dateError]);
    expect(joiner).to.deep.include.members([
      dateError,
      { field: 'name', reason: 'is required for a new employee' },
      { field: 'email', reason: 'is required for a new employee' },
    ]);
    expect(plan.totals).to.include({ rows: 2, ok: 0, errors: 2 });
  });
});
