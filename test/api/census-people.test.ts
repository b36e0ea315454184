import { expect } from 'chai';
import { setExitMode } from '../../usecases/clients.js';
import { makeEmployee, makeMember, makePolicy, sql } from '../support/factories.js';
import { census, censusCsv, CSV, newJoiner, type Census, type CensusRowIn } from '../support/census.js';
import { checkCdLedgersAfterEachTest } from '../support/cd-ledger-check.js';
import { stack } from '../support/stack.js';
import { decide, memberRows, waitFor, waitForStatus } from '../workflows/endorsement-support.js';

const PATH = '/v1/policy/endorsements/batches';
const LEAVING = '2026-12-31';

const upload = (w: Census, rows: CensusRowIn[], query = '', token = w.token) =>
  w.api.post(`${PATH}${query}`, {
    token,
    rawBody: censusCsv(rows),
    headers: { 'content-type': CSV },
  });

async function commitAndWait(w: Census, rows: CensusRowIn[]): Promise<{ batch: any; rows: any[] }> {
  const res = await upload(w, rows);
  expect(res.status, res.text).to.equal(202);
  const done = await waitFor(
    () => w.api.get(`${PATH}/${res.body.payload.batch_id}?limit=100`, { token: w.token }),
    (r) => r.body.payload?.batch.status === 'BATCH_STATUS_COMPLETED',
    'the batch to complete',
  );
  return done.body.payload;
}

const profile = (w: Census, id: string) =>
  w.api.get(`/v1/client/employees/profile?employee_id=${id}`, { token: w.token });

/** A family member's row for the employee with this code, joining from 2026-12-01. */
const familyOf = (code: string, o: CensusRowIn): CensusRowIn => ({
  employee_code: code,
  gender: 'female',
  action: 'add',
  effective_date: '2026-12-01',
  ...o,
});

describe('census batches: joiners’ families, details and exits (D16)', () => {
  checkCdLedgersAfterEachTest();

  it('adds a joiner’s family from the same file: they join the joiner’s ADDITION and are enrolled with it', async () => {
    const w = await census();
    const code = `J-${w.clientId.slice(-6)}`;
    const married = new Date(Date.now() - 5 * 86_400_000).toISOString().slice(0, 10);
    const rows: CensusRowIn[] = [
      newJoiner(code),
      familyOf(code, {
        relationship: 'spouse',
        name: 'Meena Joiner',
        date_of_birth: '1993-04-04',
        event_date: married,
      }),
      familyOf(code, {
        relationship: 'son',
        name: 'Arjun Joiner',
        date_of_birth: '2019-08-08',
        gender: 'male',
      }),
    ];
    const dry = await upload(w, rows, '?dry_run=true');
    expect(dry.status, dry.text).to.equal(200);
    const [self, spouse, son] = dry.body.payload.rows;
    expect(self).to.deep.include({ status: 'ok', creates_employee: true, employee_row: null });
    for (const d of [spouse, son])
      expect(d).to.deep.include({ status: 'ok', adds_dependent: true, employee_row: 1, endorsement: null });
    expect(dry.body.payload.totals).to.include({ ok: 3, errors: 0, employees_created: 1 });

    const done = await commitAndWait(w, rows);
    expect(done.batch.counts).to.deep.equal({ pending: 0, applied: 3, failed: 0, invalid: 0 });
    const employeeId = done.rows[0].employee_id as string;
    expect(done.rows.map((r: any) => r.employee_id)).to.deep.equal([employeeId, employeeId, employeeId]);
    const family = await w.api.get(`/v1/client/employees/${employeeId}/dependents`, { token: w.token });
    expect(family.body.payload.dependents.map((d: any) => d.name).sort()).to.deep.equal([
      'Arjun Joiner',
      'Meena Joiner',
    ]);
    // The joiner's own ADDITION enrols the covered family when the insurer approves it.
    const addition = done.rows[0].endorsement_id as string;
    await decide(addition, { decision: 'APPROVED' });
    await waitForStatus(addition, 'ENDORSEMENT_STATUS_APPROVED');
    const members = (await memberRows(w.policyId)).filter((m) => m.employee_id === employeeId);
    expect(members).to.have.length(3);
    expect(members.filter((m) => m.dependent_id !== null)).to.have.length(2);
  });

  it('updates a known employee’s changed details by code (employee.update needed), an e-mail in use being a row error', async () => {
    const w = await census();
    const renamed: CensusRowIn = {
      employee_code: w.covered.employeeCode,
      name: 'Renamed Person',
      phone: '+919822222222',
      action: 'modify',
      sum_insured: '500000',
      effective_date: '2026-12-01',
    };
    const clash = await upload(w, [{ ...renamed, email: w.uncovered.email.toUpperCase() }], '?dry_run=true');
    expect(clash.body.payload.rows[0].errors).to.deep.equal([
      { field: 'email', reason: 'is already the official e-mail of another employee' },
    ]);

    const dry = await upload(w, [renamed], '?dry_run=true');
    expect(dry.body.payload.rows[0]).to.deep.include({ status: 'ok', updates_employee: true });
    expect(dry.body.payload.totals).to.include({ employees_updated: 1, employees_created: 0 });
    const narrow = await upload(w, [renamed], '', w.client.token(['policy.all', 'employee.create']));
    expect(narrow.status).to.equal(403);
    expect(narrow.body).to.include({ title: 'Insufficient Scope' });

    const done = await commitAndWait(w, [renamed]);
    expect(done.rows[0].outcome, done.rows[0].reason).to.equal('APPLIED');
    const after = (await profile(w, w.covered.id)).body.payload.employee;
    expect(after).to.include({
      name: 'Renamed Person',
      phone_number: '+919822222222',
      email: w.covered.email,
    });
    const audit = await sql(
      `select changed_fields from audit_events where entity = 'employee' and entity_id = ? and action = 'update'`,
      [w.covered.id],
    );
    expect(audit.map((a) => [...a.changed_fields].sort())).to.deep.equal([['name', 'phone_number']]);
  });

  it('a delete row without a policy is the exit: INACTIVE from the date, a DELETION on every covering policy', async () => {
    const w = await census();
    const second = await makePolicy(w.clientId, { policyNumber: `P2-${w.clientId.slice(-6)}` });
    await makeMember(w.clientId, second.id, { id: w.covered.id, name: 'Covered' });
    const stayer = await makeEmployee(w.clientId);
    await makeMember(w.clientId, w.policyId, stayer);
    await makeMember(w.clientId, second.id, stayer);
    const rows: CensusRowIn[] = [
      { employee_code: w.covered.employeeCode, action: 'delete', effective_date: LEAVING },
      // Naming a policy ends that cover only: the employee stays ACTIVE.
      { employee_code: stayer.employeeCode, action: 'delete', effective_date: LEAVING, policy_id: second.id },
    ];
    const dry = await upload(w, rows, '?dry_run=true');
    const [exit, one] = dry.body.payload.rows;
    expect(exit).to.deep.include({ status: 'ok', endorsement: null });
    expect(exit.exit).to.deep.include({ date_of_leaving: LEAVING, mode: 'automatic' });
    expect(exit.exit.deletions.map((d: any) => d.policy_id).sort()).to.deep.equal(
      [w.policyId, second.id].sort(),
    );
    expect(one).to.deep.include({ status: 'ok', exit: null });
    expect(one.endorsement).to.include({ type: 'ENDORSEMENT_TYPE_DELETION', policy_id: second.id });
    expect(dry.body.payload.totals).to.include({ exits: 1 });
    expect(dry.body.payload.totals.endorsements.ENDORSEMENT_TYPE_DELETION).to.equal(3);

    const done = await commitAndWait(w, rows);
    expect(done.rows.map((r: any) => r.outcome)).to.deep.equal(['APPLIED', 'APPLIED']);
    const made = await sql(
      `select id, policy_id, coverage_end_date::text as end from endorsements
        where employee_id = ? and type = 'ENDORSEMENT_TYPE_DELETION' order by id`,
      [w.covered.id],
    );
    expect(made.map((m) => m.end)).to.deep.equal([LEAVING, LEAVING]);
    expect([...done.rows[0].endorsement_ids].sort()).to.deep.equal(made.map((m) => m.id));
    for (const m of made) await waitForStatus(m.id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
    expect((await profile(w, w.covered.id)).body.payload.employee).to.include({
      status: 'INACTIVE',
      date_of_leaving: LEAVING,
    });
    expect((await profile(w, stayer.id)).body.payload.employee).to.include({ status: 'ACTIVE' });
    expect(done.rows[1].endorsement_ids).to.deep.equal([done.rows[1].endorsement_id]);
  });

  it('in the proposed exit mode the exit lists its DELETIONs on the employee and creates none', async () => {
    const w = await census();
    await setExitMode(stack().orm.em.fork(), w.clientId, 'proposed');
    const rows: CensusRowIn[] = [
      { employee_code: w.covered.employeeCode, action: 'delete', effective_date: LEAVING },
    ];
    const dry = await upload(w, rows, '?dry_run=true');
    expect(dry.body.payload.rows[0].exit).to.deep.include({ mode: 'proposed' });
    expect(dry.body.payload.totals.endorsements.ENDORSEMENT_TYPE_DELETION).to.equal(0);
    const done = await commitAndWait(w, rows);
    expect(done.rows[0]).to.deep.include({ outcome: 'APPLIED', endorsement_id: null, endorsement_ids: [] });
    const seen = (await profile(w, w.covered.id)).body.payload;
    expect(seen.employee).to.include({ status: 'INACTIVE', date_of_leaving: LEAVING });
    expect(seen.pending_exits).to.deep.equal([{ policy_id: w.policyId, coverage_end_date: LEAVING }]);
  });
});
