import { expect } from 'chai';
import { parse } from 'csv-parse/sync';
import { makeClient, makeDependent, makeMember, makePolicy, sql } from '../support/factories.js';
import {
  census,
  censusCsv,
  censusXlsx,
  CSV,
  newJoiner,
  XLSX,
  type Census,
  type CensusRowIn,
} from '../support/census.js';
import { checkCdLedgersAfterEachTest } from '../support/cd-ledger-check.js';
import { waitFor } from '../workflows/endorsement-support.js';
import { workflowHandle } from '../workflows/endorsement-support.js';
import { BatchId } from '../../workflows/search-attributes.js';
import { MAX_CENSUS_ROWS } from '../../domain/upload-limits.js';

const PATH = '/v1/policy/endorsements/batches';

/** Good rows first (1-4), then one of each kind of bad row (5-12). */
function mixedRows(w: Census): CensusRowIn[] {
  const tag = w.clientId.slice(-6);
  return [
    newJoiner(`N1-${tag}`, { sum_insured: '500000' }),
    { employee_code: w.uncovered.employeeCode, action: 'add', effective_date: '2026-12-01' },
    {
      employee_code: w.covered.employeeCode,
      action: 'modify',
      effective_date: '2026-12-01',
      sum_insured: '500000',
    },
    newJoiner(`N2-${tag}`),
    { employee_code: '', action: 'add', effective_date: '2026-12-01' },
    newJoiner(`N3-${tag}`, { action: 'hire', effective_date: '2026-13-01' }),
    newJoiner(`N4-${tag}`, { name: undefined, email: 'not-an-email' }),
    newJoiner(`N5-${tag}`, { policy_id: 'pol_unknown' }),
    {
      employee_code: w.uncovered.employeeCode,
      action: 'delete',
      effective_date: '2027-01-31',
      relationship: 'self',
    },
    newJoiner(`N6-${tag}`, { sum_insured: '123456' }),
    newJoiner(`N1-${tag}`),
    newJoiner(`N7-${tag}`, { relationship: 'spouse' }),
  ];
}

const upload = (w: Census, bytes: Buffer, type: string, query = '', headers: Record<string, string> = {}) =>
  w.api.post(`${PATH}${query}`, {
    token: w.token,
    rawBody: bytes,
    headers: { 'content-type': type, ...headers },
  });

const getBatch = (w: Census, id: string, query = '') =>
  w.api.get(`${PATH}/${id}${query}`, { token: w.token });

/** A spouse's row for the employee: joining from 2026-12-01. */
const spouseOf = (code: string): CensusRowIn => ({
  employee_code: code,
  name: 'Asha Census',
  date_of_birth: '1991-03-03',
  gender: 'female',
  relationship: 'spouse',
  action: 'add',
  effective_date: '2026-12-01',
});

/** Commits the file and waits for its batch to complete; answers the batch and its rows. */
async function commitAndWait(w: Census, file: Buffer): Promise<{ batch: any; rows: any[] }> {
  const res = await upload(w, file, CSV);
  expect(res.status, res.text).to.equal(202);
  const done = await waitFor(
    () => getBatch(w, res.body.payload.batch_id, '?limit=100'),
    (r) => r.body.payload?.batch.status === 'BATCH_STATUS_COMPLETED',
    'the batch to complete',
  );
  return done.body.payload;
}

const fields = (row: any) => row.errors.map((e: any) => e.field);

describe('census batches API (D16)', () => {
  checkCdLedgersAfterEachTest();

  it('dry run lists every error of every row, plans the good ones and writes nothing', async () => {
    const w = await census();
    const before = await sql(
      'select count(*)::int as n from endorsements e join employees m on m.id = e.employee_id where m.client_id = ?',
      [w.clientId],
    );
    const res = await upload(w, censusCsv(mixedRows(w)), CSV, '?dry_run=true');
    expect(res.status, res.text).to.equal(200);
    // Written in pieces (api/json-answer.ts), as JSON still.
    expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    const { rows, totals } = res.body.payload;
    expect(rows.map((r: any) => r.status)).to.deep.equal([
      'ok',
      'ok',
      'ok',
      'ok',
      'error',
      'error',
      'error',
      'error',
      'error',
      'error',
      'error',
      'error',
    ]);
    expect(rows[0]).to.deep.include({ creates_employee: true, adds_dependent: false });
    expect(rows[0].endorsement).to.include({
      type: 'ENDORSEMENT_TYPE_ADDITION',
      policy_id: w.policyId,
      coverage_start_date: '2026-12-01',
      coverage_end_date: '2027-03-31',
      sum_insured: 500000,
    });
    expect(rows[1].creates_employee).to.equal(false);
    expect(rows[2].endorsement.type).to.equal('ENDORSEMENT_TYPE_MODIFICATION');
    expect(fields(rows[4])).to.deep.equal(['employee_code']);
    expect(fields(rows[5])).to.deep.equal(['action', 'effective_date']);
    expect(fields(rows[6])).to.deep.equal(['name', 'email']);
    expect(fields(rows[7])).to.deep.equal(['policy_id']);
    expect(rows[8].errors).to.deep.equal([
      { field: 'policy_id', reason: 'the employee is not covered by an active policy of the client' },
    ]);
    expect(fields(rows[9])).to.deep.equal(['sum_insured']);
    expect(rows[10].errors[0].reason).to.equal(
      'endorsement planned by row 1 of this census is still open for this employee and policy',
    );
    expect(rows[11].errors).to.deep.equal([{ field: 'employee_code', reason: 'no employee has this code' }]);
    expect(totals).to.include({ rows: 12, ok: 4, errors: 8, employees_created: 2 });
    expect(totals.endorsements).to.deep.equal({
      ENDORSEMENT_TYPE_ADDITION: 3,
      ENDORSEMENT_TYPE_DELETION: 0,
      ENDORSEMENT_TYPE_MODIFICATION: 1,
    });
    const premium = rows
      .slice(0, 4)
      .reduce((s: number, r: any) => s + Math.round(r.endorsement.premium_impact * 100), 0);
    expect(Math.round(totals.premium * 100)).to.equal(premium);
    const afterHolds = (100_000_000 - premium) / 100;
    expect(totals.cd).to.deep.equal([
      {
        policy_id: w.policyId,
        available: 1000000,
        debit: premium / 100,
        credit: 0,
        shortfall: 0,
        available_after: afterHolds,
        waiting: 0,
      },
    ]);
    // D17: each planned endorsement's hold in file order; the last leaves what the totals say.
    expect(rows.slice(0, 4).map((r: any) => r.endorsement.cd.hold)).to.deep.equal(
      rows.slice(0, 4).map((r: any) => Math.max(0, r.endorsement.premium_impact)),
    );
    expect(rows[3].endorsement.cd).to.include({ available_after: afterHolds, waits_for_funds: false });
    expect(rows[0].endorsement.pro_rata_days).to.equal(121);
    const after = await sql(
      'select count(*)::int as n from endorsements e join employees m on m.id = e.employee_id where m.client_id = ?',
      [w.clientId],
    );
    expect(after[0].n).to.equal(before[0].n);
    const batches = await sql('select count(*)::int as n from census_batches where client_id = ?', [
      w.clientId,
    ]);
    expect(batches[0].n).to.equal(0);
  });

  it("plans and answers a census at D16's bound in pieces (D18), the CD forecast and totals running across them", async () => {
    const w = await census();
    const tag = w.clientId.slice(-6);
    const joiners = Array.from({ length: MAX_CENSUS_ROWS }, (_, i) => newJoiner(`B${i + 1}-${tag}`));
    const res = await upload(w, censusCsv(joiners), CSV, '?dry_run=true');
    expect(res.status, res.text.slice(0, 300)).to.equal(200);
    const { rows, totals } = res.body.payload;
    expect(rows.map((r: any) => r.row)).to.deep.equal(joiners.map((_, i) => i + 1));
    expect(rows.filter((r: any) => r.status === 'ok' && r.creates_employee)).to.have.length(MAX_CENSUS_ROWS);
    // Each hold placed against what the rows before it left, in file order over every piece.
    const paise = (amount: number | string) => Math.round(Number(amount) * 100);
    let available = paise(totals.cd[0].available);
    for (const r of rows) {
      const { hold, available_after, waits_for_funds } = r.endorsement.cd;
      if (!waits_for_funds) available -= paise(hold);
      expect(paise(available_after), `row ${r.row}`).to.equal(available);
    }
    const premiums = rows.reduce((sum: number, r: any) => sum + paise(r.endorsement.premium_impact), 0);
    expect(totals).to.include({
      rows: MAX_CENSUS_ROWS,
      ok: MAX_CENSUS_ROWS,
      employees_created: MAX_CENSUS_ROWS,
    });
    expect(totals.endorsements.ENDORSEMENT_TYPE_ADDITION).to.equal(MAX_CENSUS_ROWS);
    expect(paise(totals.premium)).to.equal(premiums);
    expect(totals.cd[0]).to.include({
      waiting: rows.filter((r: any) => r.endorsement.cd.waits_for_funds).length,
    });
    expect(paise(totals.cd[0].available_after)).to.equal(available);
  });

  it('reads the same plan from XLSX, CSV and JSON rows', async () => {
    const w = await census();
    const rows = mixedRows(w);
    const csv = await upload(w, censusCsv(rows), CSV, '?dry_run=true');
    const xlsx = await upload(w, await censusXlsx(rows), XLSX, '?dry_run=true');
    const json = await w.api.post(`${PATH}?dry_run=true`, { token: w.token, body: { rows } });
    expect(xlsx.status, xlsx.text).to.equal(200);
    expect(xlsx.body.payload).to.deep.equal(csv.body.payload);
    expect(json.body.payload).to.deep.equal(csv.body.payload);
  });

  it('commit answers 202 with a batch id and applies exactly the good rows, each once, with the dry run’s plan', async () => {
    const w = await census();
    const file = censusCsv(mixedRows(w));
    const dry = await upload(w, file, CSV, '?dry_run=true');
    const res = await upload(w, file, CSV);
    expect(res.status, res.text).to.equal(202);
    const id = res.body.payload.batch_id;
    expect(id).to.match(/^bat_[a-z0-9]+$/);
    const done = await waitFor(
      () => getBatch(w, id, '?limit=100'),
      (r) => r.body.payload?.batch.status === 'BATCH_STATUS_COMPLETED',
      'the batch to complete',
    );
    const { batch, rows } = done.body.payload;
    expect(batch.counts).to.deep.equal({ pending: 0, applied: 4, failed: 0, invalid: 8 });
    expect(batch.totals).to.deep.equal(dry.body.payload.totals);
    expect(rows.map((r: any) => r.plan)).to.deep.equal(dry.body.payload.rows);
    expect(rows.map((r: any) => r.outcome)).to.deep.equal([
      ...Array(4).fill('APPLIED'),
      ...Array(8).fill('INVALID'),
    ]);
    const made = await sql(
      `select e.id, e.type, e.policy_id, e.premium_impact::text as premium, m.employee_code
         from endorsements e join employees m on m.id = e.employee_id where m.client_id = ? order by e.created_at`,
      [w.clientId],
    );
    expect(made).to.have.length(4);
    expect(
      rows
        .slice(0, 4)
        .map((r: any) => r.endorsement_id)
        .sort(),
    ).to.deep.equal(made.map((m) => m.id).sort());
    for (const r of rows.slice(0, 4)) {
      const e = made.find((m) => m.id === r.endorsement_id)!;
      expect(Number(e.premium)).to.equal(r.plan.endorsement.premium_impact);
      const described = await workflowHandle(r.endorsement_id).describe();
      expect(described.typedSearchAttributes.get(BatchId)).to.equal(id);
    }
    const joiners = await sql(
      'select employee_code, date_of_joining::text as doj from employees where client_id = ? and employee_code like ?',
      [w.clientId, 'N%'],
    );
    expect(joiners.map((j) => j.employee_code).sort()).to.deep.equal([
      `N1-${w.clientId.slice(-6)}`,
      `N2-${w.clientId.slice(-6)}`,
    ]);
    expect(joiners[0].doj).to.equal('2026-11-01');
    const events = await sql(
      `select payload from webhook_events where client_id = ? and type = 'endorsement_batch.completed'`,
      [w.clientId],
    );
    expect(events).to.have.length(1);
  });

  it('pages the rows (D5 keyset) and hides another client’s batch (404)', async () => {
    const w = await census();
    const res = await upload(w, censusCsv(mixedRows(w)), CSV);
    const id = res.body.payload.batch_id;
    const first = await getBatch(w, id, '?limit=5');
    expect(first.status).to.equal(200);
    expect(first.body.payload.rows.map((r: any) => r.row)).to.deep.equal([1, 2, 3, 4, 5]);
    expect(first.body.payload).to.include({ total_count: 12, has_next: true, has_previous: false });
    const second = await getBatch(w, id, `?limit=5&start_cursor=${first.body.payload.end_cursor}`);
    expect(second.body.payload.rows.map((r: any) => r.row)).to.deep.equal([6, 7, 8, 9, 10]);
    const stranger = await makeClient();
    const theirs = await w.api.get(`${PATH}/${id}`, { token: stranger.token() });
    expect(theirs.status).to.equal(404);
    expect(theirs.body).to.include({ type: 'NOT_FOUND', title: 'Batch Not Found' });
    expect((await getBatch(w, 'bat_unknown')).status).to.equal(404);
  });

  it('the same file twice with one Idempotency-Key is one batch; another file with it is refused', async () => {
    const w = await census();
    const file = censusCsv(mixedRows(w));
    const headers = { 'idempotency-key': `census-${w.clientId}` };
    const a = await upload(w, file, CSV, '', headers);
    const b = await upload(w, file, CSV, '', headers);
    expect(a.status).to.equal(202);
    expect(b.status).to.equal(202);
    expect(b.body.payload.batch_id).to.equal(a.body.payload.batch_id);
    expect(b.headers.get('idempotent-replayed')).to.equal('true');
    const other = await upload(w, censusCsv(mixedRows(w).slice(0, 2)), CSV, '', headers);
    expect(other.status).to.equal(422);
    const n = await sql('select count(*)::int as n from census_batches where client_id = ?', [w.clientId]);
    expect(n[0].n).to.equal(1);
  });

  it('refuses 10,001 rows and a body past 10 MiB with 413, and an unknown column with 400', async () => {
    const w = await census();
    const many = Array.from({ length: 10_001 }, (_, i) => ({
      employee_code: `E${i}`,
      action: 'add',
      effective_date: '2026-12-01',
    }));
    const rows = await upload(w, censusCsv(many), CSV, '?dry_run=true');
    expect(rows.status).to.equal(413);
    expect(rows.body).to.include({ type: 'PAYLOAD_TOO_LARGE', title: 'Too Many Rows' });
    const json = await w.api.post(`${PATH}?dry_run=true`, { token: w.token, body: { rows: many } });
    expect(json.status).to.equal(413);
    const big = Buffer.alloc(10 * 1024 * 1024 + 1, 'a');
    const huge = await upload(w, big, CSV);
    expect(huge.status).to.equal(413);
    expect(huge.body).to.include({ type: 'PAYLOAD_TOO_LARGE', detail: 'request body exceeds 10 MiB' });
    const odd = await upload(
      w,
      Buffer.from('Employee Code,Acton,Effective Date\r\nE1,add,2026-12-01\r\n'),
      CSV,
    );
    expect(odd.status).to.equal(400);
    expect(odd.body.detail).to.match(/unknown column "Acton"/);
  });

  it('refuses a commit that creates employees without employee.create (403), and answers the templates', async () => {
    const w = await census();
    const client = await makeClient();
    await makePolicy(client.clientId);
    const narrow = client.token(['policy.all']);
    const res = await w.api.post(PATH, {
      token: narrow,
      rawBody: censusCsv([newJoiner('X1')]),
      headers: { 'content-type': CSV },
    });
    expect(res.status).to.equal(403);
    expect(res.body).to.include({ title: 'Insufficient Scope' });
    const csv = await w.api.get(`${PATH}/template.csv`, { token: w.token });
    expect(csv.status).to.equal(200);
    expect(parse(csv.text)).to.deep.equal(parse(censusCsv([])));
    const xlsx = await w.api.get(`${PATH}/template.xlsx`, { token: w.token });
    expect(xlsx.status).to.equal(200);
    expect(xlsx.headers.get('content-type')).to.contain(XLSX);
  });

  it('applies a dependent’s row with its own ADDITION naming the dependent; the same row again adds no one twice', async () => {
    const w = await census();
    const married = new Date(Date.now() - 5 * 86_400_000).toISOString().slice(0, 10);
    const rows: CensusRowIn[] = [
      { ...spouseOf(w.covered.employeeCode), event_date: married },
      // The uncovered employee's son: added without an endorsement (nothing covers the employee yet).
      {
        ...spouseOf(w.uncovered.employeeCode),
        relationship: 'son',
        name: 'Kiran Census',
        date_of_birth: '2015-06-01',
      },
    ];
    const dry = await upload(w, censusCsv(rows), CSV, '?dry_run=true');
    expect(dry.status, dry.text).to.equal(200);
    const [spouse, son] = dry.body.payload.rows;
    expect(spouse).to.deep.include({ status: 'ok', adds_dependent: true, creates_employee: false });
    expect(spouse.endorsement).to.include({ type: 'ENDORSEMENT_TYPE_ADDITION', policy_id: w.policyId });
    expect(son).to.deep.include({ status: 'ok', adds_dependent: true, endorsement: null });
    const first = await commitAndWait(w, censusCsv(rows));
    expect(first.batch.counts).to.deep.equal({ pending: 0, applied: 2, failed: 0, invalid: 0 });
    const deps = await sql(
      `select d.id, d.name, d.employee_id from dependents d where d.client_id = ? order by d.name`,
      [w.clientId],
    );
    expect(deps.map((d) => d.name)).to.deep.equal(['Asha Census', 'Kiran Census']);
    const made = await sql('select id, dependent_id, type from endorsements where client_id = ?', [
      w.clientId,
    ]);
    expect(made).to.deep.equal([
      { id: first.rows[0].endorsement_id, dependent_id: deps[0].id, type: 'ENDORSEMENT_TYPE_ADDITION' },
    ]);
    expect(first.rows[1]).to.include({ outcome: 'APPLIED', endorsement_id: null });
    const again = await commitAndWait(w, censusCsv(rows));
    // The spouse's ADDITION is still open: that row is refused; the son's is applied again as the same person.
    expect(again.rows.map((r: any) => r.outcome)).to.deep.equal(['INVALID', 'APPLIED']);
    const after = await sql('select count(*)::int as n from dependents where client_id = ?', [w.clientId]);
    expect(after[0].n).to.equal(2);
  });

  it('lists an ineligible dependent’s rule in the dry run, and writes nothing of it at commit', async () => {
    const w = await census();
    const rows: CensusRowIn[] = [
      {
        ...spouseOf(w.covered.employeeCode),
        relationship: 'daughter',
        name: 'Old Daughter',
        date_of_birth: '1995-01-01',
      },
    ];
    const dry = await upload(w, censusCsv(rows), CSV, '?dry_run=true');
    expect(dry.body.payload.rows[0].status).to.equal('error');
    expect(dry.body.payload.rows[0].errors).to.deep.include({
      field: 'date_of_birth',
      reason: 'CHILD_AGE_LIMIT: a child is covered up to age 25',
    });
    const done = await commitAndWait(w, censusCsv(rows));
    expect(done.rows[0].outcome).to.equal('INVALID');
    expect(done.rows[0].reason).to.match(/CHILD_AGE_LIMIT/);
    const n = await sql(
      `select (select count(*)::int from dependents where client_id = ?) as deps,
              (select count(*)::int from endorsements where client_id = ?) as ends`,
      [w.clientId, w.clientId],
    );
    expect(n[0]).to.deep.equal({ deps: 0, ends: 0 });
  });

  it('a dependent’s delete row creates the DELETION naming the covered dependent', async () => {
    const w = await census();
    const employee = { id: w.covered.id, name: 'Covered' };
    const wife = await makeDependent(w.clientId, w.covered.id, {
      name: 'Asha Census',
      relationship: 'SPOUSE',
      dateOfBirth: '1991-03-03',
    });
    await makeMember(w.clientId, w.policyId, employee, { dependentId: wife.id });
    const rows: CensusRowIn[] = [
      {
        ...spouseOf(w.covered.employeeCode),
        name: 'ASHA CENSUS',
        action: 'delete',
        effective_date: '2027-01-31',
      },
    ];
    const done = await commitAndWait(w, censusCsv(rows));
    expect(done.rows[0].plan.endorsement).to.include({
      type: 'ENDORSEMENT_TYPE_DELETION',
      coverage_end_date: '2027-01-31',
    });
    expect(done.rows[0].outcome, done.rows[0].reason).to.equal('APPLIED');
    const made = await sql('select id, dependent_id, type from endorsements where client_id = ?', [
      w.clientId,
    ]);
    expect(made).to.deep.equal([
      { id: done.rows[0].endorsement_id, dependent_id: wife.id, type: 'ENDORSEMENT_TYPE_DELETION' },
    ]);
  });
});
