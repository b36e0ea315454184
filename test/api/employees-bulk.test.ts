import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { makeClient, makeEmployee, sql, type TestClient } from '../support/factories.js';
import { client, type HttpClient } from '../support/http.js';
import { stack } from '../support/stack.js';

const PATH = '/v1/client/employees/bulk';

/**
 * The SQL statements the shared ORM sends to PostgreSQL while `fn` runs (knex `query` events, BEGIN and
 * COMMIT included), leaving out the token's secret-version check, which a cache may or may not answer.
 */
async function statementsDuring<T>(fn: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  const knex = stack().serviceOrm.em.getConnection().getKnex();
  const statements: string[] = [];
  const listener = (q: { sql: string }) => statements.push(q.sql);
  knex.on('query', listener);
  try {
    const result = await fn();
    return { result, statements: statements.filter((s) => !/from clients/.test(s)) };
  } finally {
    knex.off('query', listener);
  }
}

describe('PATCH /v1/client/employees/bulk', () => {
  let http: HttpClient;
  let a: TestClient;
  let b: TestClient;
  let staff: { id: string }[];

  before(async function () {
    this.timeout(60_000);
    const api = await stack().startApi();
    http = client(api.url);
    [a, b] = await Promise.all([makeClient(), makeClient()]);
    staff = [];
    for (let i = 0; i < 100; i++) staff.push(await makeEmployee(a.clientId));
  });

  const bulk = (body: unknown, token = a.token()) => http.patch(PATH, { token, body });
  it('answers PUT on the bulk path 405 with Allow: PATCH, never as an update of an employee "bulk"', async () => {
    const res = await http.put(PATH, { token: a.token(), body: { name: 'Bulk' } });
    expect(res.status).to.equal(405);
    expect(res.headers.get('allow')).to.equal('PATCH');
    expect(res.body).to.deep.equal({
      type: 'METHOD_NOT_ALLOWED',
      title: 'Method Not Allowed',
      detail: 'allowed: PATCH',
      instance: PATH,
    });
    const profile = await http.put('/v1/client/employees/profile', { token: a.token(), body: { name: 'P' } });
    expect(profile.status).to.equal(405);
    expect(profile.headers.get('allow')).to.equal('GET');
  });

  const lastActive = async (ids: string[]) =>
    (await sql('select id, last_active_date from employees where id in (?)', [ids])).reduce(
      (m: Record<string, string | null>, r: { id: string; last_active_date: string | null }) => ({
        ...m,
        [r.id]: r.last_active_date,
      }),
      {},
    );

  it('updates one employee', async () => {
    const [e] = staff;
    const token = a.token(['employee.update']);
    const res = await bulk({ employees: [{ emp_id: e!.id, last_active_date: '2026-11-01' }] }, token);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({
      payload: { success: true, results: [{ emp_id: e!.id, success: true }] },
    });
    expect(await lastActive([e!.id])).to.deep.equal({ [e!.id]: '2026-11-01' });
    const audit = await sql(
      `select action, changed_fields, actor_token_id from audit_events where entity_id = ? and action = 'bulk_update'`,
      [e!.id],
    );
    expect(audit).to.deep.equal([
      {
        action: 'bulk_update',
        changed_fields: ['last_active_date'],
        actor_token_id: (jwt.decode(token) as { jti: string }).jti,
      },
    ]);
  });

  it('updates 100 employees in a bounded number of statements, the same as for one', async () => {
    const one = await statementsDuring(() =>
      bulk({ employees: [{ emp_id: staff[0]!.id, last_active_date: '2026-10-01' }] }),
    );
    const items = staff.map((e, i) => ({
      emp_id: e.id,
      last_active_date: `2026-09-${String((i % 28) + 1).padStart(2, '0')}`,
    }));
    const hundred = await statementsDuring(() => bulk({ employees: items }));

    expect(hundred.result.status).to.equal(200);
    expect(hundred.result.body.payload.results).to.deep.equal(
      items.map((i) => ({ emp_id: i.emp_id, success: true })),
    );
    const stored = await lastActive(staff.map((e) => e.id));
    for (const item of items) expect(stored[item.emp_id]).to.equal(item.last_active_date);

    // Last-active dates alone: one message (lock, set-based update, audit rows), never one per item.
    expect(hundred.statements).to.have.length(1);
    expect(one.statements).to.have.length(1);
    expect(hundred.statements[0]!.match(/update employees/gi)).to.have.length(1);
    expect(hundred.statements[0]!.match(/insert into audit_events/gi)).to.have.length(1);
    const audits = await sql(
      `select count(*)::int as n from audit_events where action = 'bulk_update' and entity_id in (?)`,
      [staff.map((e) => e.id)],
    );
    expect(audits[0].n).to.be.at.least(100);
  });

  it('answers mixed valid, unknown, malformed and incomplete items in request order; only valid ones apply', async () => {
    const [x, y, z] = [staff[10]!, staff[11]!, staff[12]!];
    const theirs = await makeEmployee(b.clientId);
    const before = await lastActive([x.id, y.id, z.id, theirs.id]);
    const res = await bulk({
      employees: [
        { emp_id: x.id, last_active_date: '2026-08-01' },
        { emp_id: 'emp_doesnotexist000000000', last_active_date: '2026-08-02' },
        { emp_id: y.id, last_active_date: '2026-02-30' },
        { last_active_date: '2026-08-03' },
        { emp_id: theirs.id, last_active_date: '2026-08-04' },
        { emp_id: z.id },
        { emp_id: x.id, last_active_date: '2026-08-05', name: 'Renamed' },
        'not an object',
        { emp_id: 42 },
      ],
    });

    expect(res.status).to.equal(200);
    expect(res.body.payload).to.deep.equal({
      success: true,
      results: [
        { emp_id: x.id, success: true },
        { emp_id: 'emp_doesnotexist000000000', success: false, error: 'Employee Not Found' },
        {
          emp_id: y.id,
          success: false,
          error: 'last_active_date: must be a real calendar date in YYYY-MM-DD form',
        },
        { emp_id: '', success: false, error: 'emp_id: is required' },
        { emp_id: theirs.id, success: false, error: 'Employee Not Found' },
        { emp_id: z.id, success: true },
        { emp_id: x.id, success: false, error: 'name: is not an allowed field' },
        { emp_id: '', success: false, error: 'item: must be an object' },
        { emp_id: '', success: false, error: 'emp_id: must be a string' },
      ],
    });
    expect(await lastActive([x.id, y.id, z.id, theirs.id])).to.deep.equal({
      ...before,
      [x.id]: '2026-08-01',
    });
  });

  it('lets the later of two items for the same employee win', async () => {
    const e = staff[20]!;
    const res = await bulk({
      employees: [
        { emp_id: e.id, last_active_date: '2026-07-01' },
        { emp_id: e.id, last_active_date: '2026-07-09' },
      ],
    });
    expect(res.body.payload.results).to.deep.equal([
      { emp_id: e.id, success: true },
      { emp_id: e.id, success: true },
    ]);
    expect(await lastActive([e.id])).to.deep.equal({ [e.id]: '2026-07-09' });
  });

  it('applies nothing when every item fails, and still answers 200 with the results', async () => {
    const res = await bulk({ employees: [{ emp_id: 'emp_nope00000000000000000' }, {}] });
    expect(res.status).to.equal(200);
    expect(res.body.payload).to.deep.equal({
      success: true,
      results: [
        { emp_id: 'emp_nope00000000000000000', success: false, error: 'Employee Not Found' },
        { emp_id: '', success: false, error: 'emp_id: is required' },
      ],
    });
  });

  const invalid: [string, unknown, string][] = [
    ['an empty employees array', { employees: [] }, 'employees: must have at least one item'],
    ['a missing employees field', {}, 'employees: is required'],
    [
      'employees that is not an array',
      { employees: { emp_id: 'x' } },
      'employees: must be an array of employees',
    ],
    [
      'an unknown top-level field',
      { employees: [{ emp_id: 'x' }], mode: 'all' },
      'mode: is not an allowed field',
    ],
    ['a body that is an array', [{ emp_id: 'x' }], 'body: must be an object'],
  ];
  for (const [label, body, detail] of invalid) {
    it(`answers 400 VALIDATION_ERROR for ${label}`, async () => {
      const res = await bulk(body);
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal({
        type: 'VALIDATION_ERROR',
        title: 'Validation Failed',
        detail,
        instance: PATH,
      });
    });
  }

  it('answers 413 Too Many Employees for 101 items and applies none', async () => {
    const items = [...staff, staff[0]!].map((e) => ({ emp_id: e.id, last_active_date: '2020-01-01' }));
    expect(items).to.have.length(101);
    const res = await bulk({ employees: items });
    expect(res.status).to.equal(413);
    expect(res.body).to.deep.equal({
      type: 'PAYLOAD_TOO_LARGE',
      title: 'Too Many Employees',
      detail: 'employees: must have at most 100 items',
      instance: PATH,
    });
    const rows = await sql(`select count(*)::int as n from employees where last_active_date = '2020-01-01'`);
    expect(rows[0].n).to.equal(0);
  });

  it('admits employee.all and refuses employee.get / employee.create with 403', async () => {
    const body = { employees: [{ emp_id: staff[30]!.id, last_active_date: '2026-06-06' }] };
    expect((await bulk(body, a.token(['employee.all']))).status).to.equal(200);
    const res = await bulk(body, a.token(['employee.get', 'employee.create']));
    expect(res.status).to.equal(403);
    expect(res.body.detail).to.include('employee.update').and.to.include('employee.all');
  });

  it('never touches another client’s employee (D1)', async () => {
    const theirs = await makeEmployee(b.clientId);
    const res = await bulk({ employees: [{ emp_id: theirs.id, last_active_date: '2026-05-05' }] });
    expect(res.body.payload.results).to.deep.equal([
      { emp_id: theirs.id, success: false, error: 'Employee Not Found' },
    ]);
    expect(await lastActive([theirs.id])).to.deep.equal({ [theirs.id]: null });
    const own = await bulk({ employees: [{ emp_id: theirs.id, last_active_date: '2026-05-05' }] }, b.token());
    expect(own.body.payload.results).to.deep.equal([{ emp_id: theirs.id, success: true }]);
  });
});
