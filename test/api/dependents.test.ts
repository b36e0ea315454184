import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { fixedClock } from '../../domain/clock.js';
import type { Scope } from '../../domain/scopes.js';
import { makeClient, makeEmployee, sql, type TestClient } from '../support/factories.js';
import { client, type HttpClient } from '../support/http.js';
import { stack } from '../support/stack.js';

const path = (employeeId: string) => `/v1/client/employees/${encodeURIComponent(employeeId)}/dependents`;

/** A value as a test's title shows it: JSON, with every character outside printable ASCII escaped. */
const shown = (v: unknown): string =>
  JSON.stringify(v).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

describe('dependents of an employee', () => {
  // Pinned: 20:00 UTC on 22 Nov is already 23 Nov in Asia/Kolkata. Tokens are issued on the same clock.
  const clock = fixedClock('2026-11-22T20:00:00Z');
  let http: HttpClient;
  let a: TestClient;
  let b: TestClient;
  const tokenA = (scopes?: Scope[]) => a.token(scopes, clock);

  before(async () => {
    const api = await stack().startApi({ clock });
    http = client(api.url);
    [a, b] = await Promise.all([makeClient(), makeClient()]);
  });

  const spouse = {
    name: 'Kiran Rao',
    relationship: 'SPOUSE',
    date_of_birth: '1991-06-15',
    gender: 'GENDER_MALE',
  };
  const add = (employeeId: string, body: unknown, token = tokenA()) =>
    http.post(path(employeeId), { token, body });
  const list = (employeeId: string, token = tokenA()) => http.get(path(employeeId), { token });

  it('adds a dependent, lists it, and audits the change without personal values', async () => {
    const e = await makeEmployee(a.clientId);
    const token = tokenA(['employee.update']);
    const res = await add(e.id, spouse, token);

    expect(res.status).to.equal(200);
    // An employee covered nowhere: no policy to join, so no ADDITION (D16).
    expect(res.body.payload).to.have.all.keys('dependent_id', 'endorsements', 'message', 'success');
    expect(res.body.payload.endorsements).to.deep.equal([]);
    expect(res.body.payload).to.include({ message: 'Dependent added successfully', success: true });
    const dependentId = res.body.payload.dependent_id as string;
    expect(dependentId).to.match(/^dep_[a-z0-9]{10,}$/);

    const listed = await list(e.id, tokenA(['employee.get']));
    expect(listed.status).to.equal(200);
    expect(listed.body.payload).to.deep.equal({
      dependents: [
        {
          dependent_id: dependentId,
          employee_id: e.id,
          name: 'Kiran Rao',
          relationship: 'SPOUSE',
          date_of_birth: '1991-06-15',
          // The response spelling of Get Employee and member rows: male without the prefix.
          gender: 'MALE',
          event_date: '',
        },
      ],
      message: 'Dependents fetched successfully',
      success: true,
    });
    const [row] = await sql('select client_id, gender from dependents where id = ?', [dependentId]);
    expect(row).to.deep.equal({ client_id: a.clientId, gender: 'MALE' });

    const audit = await sql(
      `select action, changed_fields, actor_token_id from audit_events where entity_id = ? and action <> 'create'`,
      [e.id],
    );
    expect(audit).to.deep.equal([
      {
        action: 'dependent_create',
        changed_fields: ['dependents'],
        actor_token_id: (jwt.decode(token) as { jti: string }).jti,
      },
    ]);
  });

  it('lists every relationship in the order added, and [] for an employee without dependents', async () => {
    const e = await makeEmployee(a.clientId);
    expect((await list(e.id)).body.payload.dependents).to.deep.equal([]);
    const people = [
      spouse,
      { name: 'Anu Rao', relationship: 'CHILD', date_of_birth: '2026-11-23', gender: 'GENDER_FEMALE' },
      { name: 'Lakshmi Rao', relationship: 'PARENT', date_of_birth: '1960-01-01', gender: 'GENDER_FEMALE' },
      { name: 'Sam Rao', relationship: 'PARENT_IN_LAW', date_of_birth: '1958-02-02', gender: 'GENDER_OTHER' },
    ];
    for (const p of people) expect((await add(e.id, p)).status).to.equal(200);
    const listed = (await list(e.id)).body.payload.dependents as { relationship: string; gender: string }[];
    expect(listed.map((d) => [d.relationship, d.gender])).to.deep.equal([
      ['SPOUSE', 'MALE'],
      ['CHILD', 'GENDER_FEMALE'],
      ['PARENT', 'GENDER_FEMALE'],
      ['PARENT_IN_LAW', 'GENDER_OTHER'],
    ]);
  });

  it('answers a repeated add of the same person (any name case) with the existing id', async () => {
    const e = await makeEmployee(a.clientId);
    const first = await add(e.id, spouse);
    const again = await add(e.id, { ...spouse, name: 'KIRAN RAO', gender: 'GENDER_OTHER' });
    expect(again.status).to.equal(200);
    expect(again.body.payload).to.deep.equal({
      dependent_id: first.body.payload.dependent_id,
      endorsements: [],
      message: 'Dependent already exists',
      success: true,
    });
    const racing = await Promise.all(
      Array.from({ length: 10 }, () =>
        add(e.id, { ...spouse, name: 'Other Person', relationship: 'PARENT' }),
      ),
    );
    expect(new Set(racing.map((r) => r.body.payload.dependent_id)).size).to.equal(1);
    expect((await list(e.id)).body.payload.dependents).to.have.length(2);
  });

  const invalid: [Record<string, unknown>, string][] = [
    [{ name: undefined }, 'name: is required'],
    [{ relationship: undefined }, 'relationship: is required'],
    [{ date_of_birth: undefined }, 'date_of_birth: is required'],
    [{ gender: undefined }, 'gender: is required'],
    [{ relationship: 'SIBLING' }, 'relationship: must be one of SPOUSE, CHILD, PARENT, PARENT_IN_LAW'],
    [{ gender: 'MALE' }, 'gender: must be one of GENDER_MALE, GENDER_FEMALE, GENDER_OTHER'],
    [{ date_of_birth: '2025-02-30' }, 'date_of_birth: must be a real calendar date in YYYY-MM-DD form'],
    [{ date_of_birth: '2026-11-24' }, 'date_of_birth: must not be in the future'],
    [{ name: 5 }, 'name: must be a string'],
    [{ name: 'Kiran\u200bRao' }, 'name: must not contain invisible characters'],
    [{ name: 'Kiran\u200fRao' }, 'name: must not contain bidirectional formatting characters'],
    [{ name: '=HYPERLINK("http://evil.example","x")' }, 'name: must not start with =, +, - or @'],
    [{ employee_id: 'emp_x' }, 'employee_id: is not an allowed field'],
  ];
  for (const [change, detail] of invalid) {
    const [field, value] = Object.entries(change)[0]!;
    const label = value === undefined ? `a missing ${field}` : `${field} ${shown(value)}`;
    it(`rejects ${label} with 400 naming the field`, async () => {
      const e = await makeEmployee(a.clientId);
      const res = await add(e.id, { ...spouse, ...change });
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal({
        type: 'VALIDATION_ERROR',
        title: 'Validation Failed',
        detail,
        instance: path(e.id),
      });
      expect((await list(e.id)).body.payload.dependents).to.deep.equal([]);
    });
  }

  it('answers an unknown employee and another client’s employee with the same 404 on both routes (D1)', async () => {
    const theirs = await makeEmployee(b.clientId);
    await http.post(path(theirs.id), { token: b.token(undefined, clock), body: spouse });
    const notFound = (p: string) => ({
      type: 'NOT_FOUND',
      title: 'Employee Not Found',
      detail: '',
      instance: p,
    });

    for (const id of ['emp_doesnotexist000000000', theirs.id]) {
      const posted = await add(id, { ...spouse, name: 'Intruder' });
      expect(posted.status).to.equal(404);
      expect(posted.body).to.deep.equal(notFound(path(id)));
      const listed = await list(id);
      expect(listed.status).to.equal(404);
      expect(listed.body).to.deep.equal(notFound(path(id)));
    }
    const rows = await sql('select name from dependents where employee_id = ?', [theirs.id]);
    expect(rows).to.deep.equal([{ name: 'Kiran Rao' }]);
  });

  it('reads with employee.get / employee.all and writes with employee.update / employee.all', async () => {
    const e = await makeEmployee(a.clientId);
    expect((await add(e.id, spouse, tokenA(['employee.all']))).status).to.equal(200);
    expect((await list(e.id, tokenA(['employee.all']))).status).to.equal(200);

    const write = await add(e.id, spouse, tokenA(['employee.get', 'employee.create']));
    expect(write.status).to.equal(403);
    expect(write.body.detail).to.include('employee.update');
    const read = await list(e.id, tokenA(['employee.update', 'employee.create']));
    expect(read.status).to.equal(403);
    expect(read.body.detail).to.include('employee.get');
  });
});
