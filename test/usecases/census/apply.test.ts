import { expect } from 'chai';
import { insertCensusBatch } from '../../../data/census/batches.js';
import { TenantScope } from '../../../data/scope.js';
import { newId } from '../../../domain/ids.js';
import { applyCensusRange } from '../../../usecases/census/apply.js';
import { planCensus } from '../../../usecases/census/census.js';
import {
  census,
  newJoiner,
  postUncoveredAddition,
  type Census,
  type CensusRowIn,
} from '../../support/census.js';
import { checkCdLedgersAfterEachTest } from '../../support/cd-ledger-check.js';
import { makePolicy, sql } from '../../support/factories.js';
import { stack } from '../../support/stack.js';

const TODAY = '2026-11-24';

/** Plans and stages a census as a commit does, without starting its workflow (the test applies it). */
async function staged(w: Census, rows: CensusRowIn[]): Promise<{ scope: TenantScope; batchId: string }> {
  const scope = TenantScope.of(stack().orm.em, w.clientId);
  const plan = await planCensus(scope, { kind: 'json', rows }, TODAY);
  const batchId = newId('batch');
  await insertCensusBatch(scope, { id: batchId, totals: plan.totals, actorTokenId: null }, plan.staged);
  return { scope, batchId };
}

const outcomes = (batchId: string) =>
  sql(
    `select row_number, outcome, reason, endorsement_id, employee_id from census_batch_rows
      where batch_id = ? order by row_number`,
    [batchId],
  );

describe('census apply (usecases/census/apply.ts)', () => {
  checkCdLedgersAfterEachTest();

  it('applies each row once: a retry of the same chunk writes nothing again', async () => {
    const w = await census();
    const { scope, batchId } = await staged(w, [
      newJoiner(`A-${w.clientId.slice(-6)}`),
      { employee_code: w.uncovered.employeeCode, action: 'add', effective_date: '2026-12-01' },
    ]);
    const deps = await stack().deps();
    const first = await applyCensusRange(deps, scope, batchId, { from: 1, to: 2 }, TODAY);
    expect(first).to.deep.equal({ applied: 2, failed: 0 });
    const again = await applyCensusRange(deps, scope, batchId, { from: 1, to: 2 }, TODAY);
    expect(again).to.deep.equal({ applied: 0, failed: 0 });
    const rows = await outcomes(batchId);
    expect(rows.map((r) => r.outcome)).to.deep.equal(['APPLIED', 'APPLIED']);
    const made = await sql('select id, workflow_started_at from endorsements where id in (?, ?)', [
      rows[0].endorsement_id,
      rows[1].endorsement_id,
    ]);
    expect(made).to.have.length(2);
    expect(made.every((e) => e.workflow_started_at !== null)).to.equal(true);
    const employees = await sql('select count(*)::int as n from employees where client_id = ?', [w.clientId]);
    expect(employees[0].n).to.equal(3);
  });

  it('applies a chunk in one transaction: an error that is not a refusal writes nothing, and the retry applies each row once', async () => {
    const w = await census();
    const joiner = `J-${w.clientId.slice(-6)}`;
    const { scope, batchId } = await staged(w, [
      newJoiner(joiner),
      { employee_code: w.uncovered.employeeCode, action: 'add', effective_date: '2026-12-01' },
    ]);
    // The database fails the chunk's last write (the uncovered employee's endorsement), as an outage would.
    await sql(`create or replace function census_chunk_fault() returns trigger language plpgsql as $$
                 begin
                   if new.employee_id = '${w.uncovered.id}' then raise exception 'census chunk fault'; end if;
                   return new;
                 end $$;
               create trigger census_chunk_fault before insert on endorsements
                 for each row execute function census_chunk_fault()`);
    const deps = await stack().deps();
    try {
      let thrown: unknown = null;
      await applyCensusRange(deps, scope, batchId, { from: 1, to: 2 }, TODAY).catch((err: unknown) => {
        thrown = err;
      });
      expect(String(thrown)).to.contain('census chunk fault');
      expect((await outcomes(batchId)).map((r) => r.outcome)).to.deep.equal([null, null]);
      const written = await sql(
        `select (select count(*)::int from employees where client_id = ? and employee_code = ?) as joiners,
                (select count(*)::int from endorsements where client_id = ?) as endorsements`,
        [w.clientId, joiner, w.clientId],
      );
      expect(written[0], "the joiner's row, applied before the fault, was rolled back too").to.deep.equal({
        joiners: 0,
        endorsements: 0,
      });
    } finally {
      await sql('drop trigger census_chunk_fault on endorsements; drop function census_chunk_fault()');
    }
    expect(await applyCensusRange(deps, scope, batchId, { from: 1, to: 2 }, TODAY)).to.deep.equal({
      applied: 2,
      failed: 0,
    });
    const rows = await outcomes(batchId);
    expect(rows.map((r) => r.outcome)).to.deep.equal(['APPLIED', 'APPLIED']);
    const made = await sql(
      `select employee_id, workflow_started_at from endorsements where client_id = ? order by employee_id`,
      [w.clientId],
    );
    expect(made.map((e) => e.employee_id).sort()).to.deep.equal([rows[0].employee_id, w.uncovered.id].sort());
    expect(made.every((e) => e.workflow_started_at !== null)).to.equal(true);
  });

  it('a row refused when applied is FAILED with its reason, writes nothing, and never stops the others', async () => {
    const w = await census();
    const other = await makePolicy(w.clientId, { policyNumber: `P2-${w.clientId.slice(-6)}` });
    const joiner = `B-${w.clientId.slice(-6)}`;
    const { scope, batchId } = await staged(w, [
      newJoiner(joiner, { policy_id: other.id }),
      {
        employee_code: w.uncovered.employeeCode,
        action: 'add',
        effective_date: '2026-12-01',
        policy_id: w.policyId,
      },
      newJoiner(`C-${w.clientId.slice(-6)}`, { policy_id: w.policyId }),
    ]);
    // Between the plan and the apply: the joiner's policy is no longer active, and the uncovered
    // employee gets an endorsement of their own through the API.
    await sql(`update policies set status = 'POLICY_STATUS_INACTIVE' where id = ?`, [other.id]);
    const res = await postUncoveredAddition(w);
    const open = res.body.payload.endorsement_id as string;
    const deps = await stack().deps();
    const result = await applyCensusRange(deps, scope, batchId, { from: 1, to: 3 }, TODAY);
    expect(result).to.deep.equal({ applied: 1, failed: 2 });
    const rows = await outcomes(batchId);
    expect(rows.map((r) => r.outcome)).to.deep.equal(['FAILED', 'FAILED', 'APPLIED']);
    expect(rows[0].reason).to.equal('POLICY_NOT_FOUND');
    expect(rows[1].reason).to.equal(
      `IN_PROGRESS: endorsement ${open} is still open for this employee and policy`,
    );
    expect(rows[0].employee_id).to.equal(null);
    const joinerRows = await sql('select id from employees where client_id = ? and employee_code = ?', [
      w.clientId,
      joiner,
    ]);
    expect(joinerRows, 'the failed row created no employee').to.have.length(0);
  });

  it('a row whose own statement fails (an e-mail taken after the plan) is FAILED, writes none of its details, and the chunk goes on', async () => {
    const w = await census();
    const taken = `taken-${w.clientId.slice(-6)}@example.com`;
    const joiner = `J-${w.clientId.slice(-6)}`;
    const { scope, batchId } = await staged(w, [
      {
        employee_code: w.uncovered.employeeCode,
        action: 'add',
        effective_date: '2026-12-01',
        name: 'Renamed By Census',
        email: taken,
      },
      newJoiner(joiner),
    ]);
    // Between the plan and the apply, the covered employee's account takes the e-mail: the row's
    // update of the e-mail key fails on its unique key inside the chunk's transaction.
    await sql(`update users set email_key = ? where id = (select user_id from employees where id = ?)`, [
      taken,
      w.covered.id,
    ]);
    const deps = await stack().deps();
    const result = await applyCensusRange(deps, scope, batchId, { from: 1, to: 2 }, TODAY);
    expect(result).to.deep.equal({ applied: 1, failed: 1 });
    const rows = await outcomes(batchId);
    expect(rows.map((r) => r.outcome)).to.deep.equal(['FAILED', 'APPLIED']);
    expect(rows[0].reason).to.equal('EMAIL_IN_USE: the official e-mail belongs to another employee');
    expect(rows[0].endorsement_id).to.equal(null);
    const [uncovered] = await sql('select name, email from employees where id = ?', [w.uncovered.id]);
    expect(uncovered.name).to.not.equal('Renamed By Census');
    expect(uncovered.email).to.equal(w.uncovered.email);
    const opened = await sql('select id from endorsements where employee_id = ?', [w.uncovered.id]);
    expect(opened, 'the failed row opened no endorsement').to.have.length(0);
    const [made] = await sql('select employee_id from endorsements where id = ?', [rows[1].endorsement_id]);
    expect(made.employee_id).to.equal(rows[1].employee_id);
  });
  it('applies a row naming a joiner of the same file after the joiner’s row, whichever chunk comes first', async () => {
    const w = await census();
    const joiner = `F-${w.clientId.slice(-6)}`;
    const { scope, batchId } = await staged(w, [
      newJoiner(joiner),
      sonOf(joiner),
      newJoiner(`G-${joiner}`),
      sonOf(`G-${joiner}`),
    ]);
    const deps = await stack().deps();
    // The son's chunk first: it applies the joiner's row, then the son's.
    expect(await applyCensusRange(deps, scope, batchId, { from: 2, to: 2 }, TODAY)).to.deep.equal({
      applied: 2,
      failed: 0,
    });
    // The joiner's chunk first: it applies the rows naming its joiner before starting the ADDITION.
    expect(await applyCensusRange(deps, scope, batchId, { from: 3, to: 3 }, TODAY)).to.deep.equal({
      applied: 2,
      failed: 0,
    });
    expect(await applyCensusRange(deps, scope, batchId, { from: 1, to: 4 }, TODAY)).to.deep.equal({
      applied: 0,
      failed: 0,
    });
    const rows = await outcomes(batchId);
    expect(rows.map((r) => r.outcome)).to.deep.equal(['APPLIED', 'APPLIED', 'APPLIED', 'APPLIED']);
    expect(rows[1].employee_id).to.equal(rows[0].employee_id);
    expect(rows[3].employee_id).to.equal(rows[2].employee_id);
    const family = await sql('select employee_id from dependents where client_id = ? order by employee_id', [
      w.clientId,
    ]);
    expect(family.map((d) => d.employee_id).sort()).to.deep.equal(
      [rows[0].employee_id, rows[2].employee_id].sort(),
    );
    const started = await sql('select workflow_started_at from endorsements where id in (?, ?)', [
      rows[0].endorsement_id,
      rows[2].endorsement_id,
    ]);
    expect(started.every((e) => e.workflow_started_at !== null)).to.equal(true);
  });

  it('fails a row naming a joiner of the same file whose own row failed, with the reason, writing nothing', async () => {
    const w = await census();
    const other = await makePolicy(w.clientId, { policyNumber: `P3-${w.clientId.slice(-6)}` });
    const joiner = `H-${w.clientId.slice(-6)}`;
    const { scope, batchId } = await staged(w, [newJoiner(joiner, { policy_id: other.id }), sonOf(joiner)]);
    await sql(`update policies set status = 'POLICY_STATUS_INACTIVE' where id = ?`, [other.id]);
    const deps = await stack().deps();
    expect(await applyCensusRange(deps, scope, batchId, { from: 2, to: 2 }, TODAY)).to.deep.equal({
      applied: 0,
      failed: 2,
    });
    const rows = await outcomes(batchId);
    expect(rows.map((r) => r.outcome)).to.deep.equal(['FAILED', 'FAILED']);
    expect(rows[1].reason).to.equal(
      'EMPLOYEE_NOT_FOUND: row 1, which creates this employee, is FAILED (POLICY_NOT_FOUND)',
    );
    const n = await sql(
      `select (select count(*)::int from dependents where client_id = ?) as deps,
              (select count(*)::int from employees where client_id = ? and employee_code = ?) as joiners`,
      [w.clientId, w.clientId, joiner],
    );
    expect(n[0]).to.deep.equal({ deps: 0, joiners: 0 });
  });
});

/** A son's row for the employee with this code. */
const sonOf = (code: string): CensusRowIn => ({
  employee_code: code,
  relationship: 'son',
  name: 'Dev Son',
  date_of_birth: '2019-08-08',
  gender: 'male',
  action: 'add',
  effective_date: '2026-12-01',
});
