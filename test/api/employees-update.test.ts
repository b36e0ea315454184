import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { fixedClock } from '../../domain/clock.js';
import type { Scope } from '../../domain/scopes.js';
import {
  makeClient,
  makeEmployee,
  makeMember,
  makePolicy,
  sql,
  type TestClient,
} from '../support/factories.js';
import { client, type HttpClient } from '../support/http.js';
import { stack } from '../support/stack.js';

const path = (id: string) => `/v1/client/employees/${encodeURIComponent(id)}`;
const tag = () => randomBytes(4).toString('hex');

describe('PUT /v1/client/employees/{employee_id}', () => {
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
  beforeEach(() => clock.set('2026-11-22T20:00:00Z'));

  const update = (id: string, body: unknown, token = tokenA()) => http.put(path(id), { token, body });
  const profile = async (id: string, token = tokenA()) =>
    (await http.get(`/v1/client/employees/profile?employee_id=${id}`, { token })).body.payload.employee;
  const auditOf = (id: string) =>
    sql('select action, changed_fields, actor_token_id from audit_events where entity_id = ? order by id', [
      id,
    ]);

  async function employee() {
    const res = await http.post('/v1/client/employees', {
      token: tokenA(),
      body: {
        employee_id: `E-${tag()}`,
        name: 'Meera Iyer',
        email: `meera.${tag()}@example.com`,
        phone_number: '+919800000001',
        date_of_birth: '1992-03-04',
        gender: 'GENDER_FEMALE',
        status: 'EMPLOYEE_STATUS_ACTIVE',
        designation: 'Analyst',
      },
    });
    return res.body.payload.employee_id as string;
  }

  describe('each field alone changes only itself', () => {
    const cases: [string, unknown, string, unknown][] = [
      ['name', 'Meera Nair', 'name', 'Meera Nair'],
      ['email', 'meera.new@example.net', 'email', 'meera.new@example.net'],
      ['phone_number', '9811122233', 'phone_number', '9811122233'],
      ['date_of_birth', '1991-12-31', 'date_of_birth', '1991-12-31'],
      ['gender', 'GENDER_OTHER', 'gender', 'GENDER_OTHER'],
      ['designation', 'Lead Analyst', 'designation', 'Lead Analyst'],
      ['department', 'Risk', 'department', 'Risk'],
      ['date_of_joining', '2021-04-01', 'date_of_joining', '2021-04-01'],
      ['address', '7 Marine Drive, Mumbai', 'address', '7 Marine Drive, Mumbai'],
      ['personal_email', 'meera@home.example.org', 'personal_email', 'meera@home.example.org'],
      ['personal_phone_number', '+447700900123', 'personal_phone_number', '+447700900123'],
      ['last_active_date', '2026-11-21', 'last_active_date', '2026-11-21'],
      ['status', 'EMPLOYEE_STATUS_INACTIVE_ONGOING_CLAIM', 'status', 'INACTIVE_ONGOING_CLAIM'],
    ];
    for (const [field, value, shown, expected] of cases) {
      it(field, async () => {
        const id = await employee();
        const before = await profile(id);
        const body = { [field]: field === 'email' ? `${tag()}.${value as string}` : value };
        const token = tokenA(['employee.update']);

        const res = await update(id, body, token);

        expect(res.status).to.equal(200);
        expect(res.body).to.deep.equal({
          payload: { employee_id: id, message: 'Employee updated successfully', success: true },
        });
        const after = await profile(id);
        const want = { ...before, [shown]: field === 'email' ? body.email : expected };
        if (field === 'status') want.date_of_leaving = '2026-11-23';
        expect(after).to.deep.equal(want);
        const audit = await auditOf(id);
        expect(audit).to.have.length(2);
        const changed = field === 'status' ? ['status', 'date_of_leaving'] : [field];
        expect(audit[1]).to.deep.equal({
          action: 'update',
          changed_fields: changed,
          actor_token_id: (jwt.decode(token) as { jti: string }).jti,
        });
      });
    }
  });

  it('changes nothing and audits nothing for an empty body or the same values', async () => {
    const id = await employee();
    const before = await profile(id);
    expect((await update(id, {})).status).to.equal(200);
    expect((await update(id, { name: before.name, designation: 'Analyst' })).status).to.equal(200);
    expect(await profile(id)).to.deep.equal(before);
    expect((await auditOf(id)).map((r) => r.action)).to.deep.equal(['create']);
  });

  it('changes several fields at once and leaves the rest', async () => {
    const id = await employee();
    const before = await profile(id);
    const res = await update(id, { department: 'Ops', address: '', phone_number: '+919999999999' });
    expect(res.status).to.equal(200);
    expect(await profile(id)).to.deep.equal({
      ...before,
      department: 'Ops',
      phone_number: '+919999999999',
    });
    expect((await auditOf(id))[1]!.changed_fields).to.have.members(['department', 'phone_number']);
  });

  describe('status transitions and date_of_leaving (D6)', () => {
    it('sets date_of_leaving to today in Asia/Kolkata when the employee leaves, clears it on return', async () => {
      const id = await employee();
      await update(id, { status: 'EMPLOYEE_STATUS_INACTIVE' });
      expect(await profile(id)).to.include({ status: 'INACTIVE', date_of_leaving: '2026-11-23' });

      clock.set('2026-12-05T04:00:00Z');
      // Moving between the inactive statuses keeps the day the employee left.
      await update(id, { status: 'EMPLOYEE_STATUS_INACTIVE_ONGOING_CLAIM' });
      expect(await profile(id)).to.include({
        status: 'INACTIVE_ONGOING_CLAIM',
        date_of_leaving: '2026-11-23',
      });
      await update(id, { status: 'EMPLOYEE_STATUS_INACTIVE' });
      expect(await profile(id)).to.include({ status: 'INACTIVE', date_of_leaving: '2026-11-23' });

      await update(id, { status: 'EMPLOYEE_STATUS_ACTIVE' });
      expect(await profile(id)).to.include({ status: 'ACTIVE', date_of_leaving: '' });
      const [row] = await sql('select date_of_leaving from employees where id = ?', [id]);
      expect(row.date_of_leaving).to.equal(null);

      await update(id, { status: 'EMPLOYEE_STATUS_INACTIVE' });
      expect(await profile(id)).to.include({ status: 'INACTIVE', date_of_leaving: '2026-12-05' });
    });

    it('leaves date_of_leaving alone when the same status is sent again', async () => {
      const id = await employee();
      await update(id, { status: 'EMPLOYEE_STATUS_INACTIVE' });
      clock.set('2027-01-10T10:00:00Z');
      await update(id, { status: 'EMPLOYEE_STATUS_INACTIVE' });
      expect(await profile(id)).to.include({ date_of_leaving: '2026-11-23' });
    });
  });

  describe('official email and the user account', () => {
    it('answers 409 CONFLICT for another employee’s email (any case) and changes nothing', async () => {
      const [mine, other] = [await employee(), await employee()];
      const otherEmail = (await profile(other)).email as string;
      const before = await profile(mine);

      const res = await update(mine, { email: otherEmail.toUpperCase(), name: 'Changed Too' });

      expect(res.status).to.equal(409);
      expect(res.body.type).to.equal('CONFLICT');
      expect(res.body.detail).to.match(/^email: /);
      expect(res.body.instance).to.equal(path(mine));
      expect(await profile(mine)).to.deep.equal(before);
      const [u] = await sql(
        'select u.email_key from users u join employees e on e.user_id = u.id where e.id = ?',
        [mine],
      );
      expect(u.email_key).to.equal(before.email.toLowerCase());
      expect((await auditOf(mine)).map((r) => r.action)).to.deep.equal(['create']);
    });

    it('lets only one of two racing changes to the same new email win', async () => {
      const [x, y] = [await employee(), await employee()];
      const email = `shared.${tag()}@example.com`;
      const results = await Promise.all([update(x, { email }), update(y, { email })]);
      expect(results.map((r) => r.status).sort()).to.deep.equal([200, 409]);
      const rows = await sql('select count(*)::int as n from users where client_id = ? and email_key = ?', [
        a.clientId,
        email,
      ]);
      expect(rows[0].n).to.equal(1);
    });

    it('moves the user account to the new email: a create with the new email finds this employee', async () => {
      const id = await employee();
      const oldEmail = (await profile(id)).email as string;
      const newEmail = `moved.${tag()}@example.com`;
      expect((await update(id, { email: newEmail })).status).to.equal(200);

      const base = {
        name: 'Someone',
        phone_number: '9800000000',
        date_of_birth: '1990-01-01',
        gender: 'GENDER_MALE',
        status: 'EMPLOYEE_STATUS_ACTIVE',
      };
      const byNew = await http.post('/v1/client/employees', {
        token: tokenA(),
        body: { ...base, employee_id: `E-${tag()}`, email: newEmail.toUpperCase() },
      });
      expect(byNew.body.payload).to.include({ employee_id: id, message: 'Employee already exists' });
      const byOld = await http.post('/v1/client/employees', {
        token: tokenA(),
        body: { ...base, employee_id: `E-${tag()}`, email: oldEmail },
      });
      expect(byOld.body.payload.message).to.equal('Employee created successfully');
    });

    it('accepts its own email in another case without touching the user account', async () => {
      const id = await employee();
      const email = (await profile(id)).email as string;
      const res = await update(id, { email: email.toUpperCase() });
      expect(res.status).to.equal(200);
      expect((await profile(id)).email).to.equal(email.toUpperCase());
    });
  });

  it('keeps the denormalised member name in step with a name change, in the same transaction', async () => {
    const e = await makeEmployee(a.clientId, { name: 'Old Name' });
    const other = await makeEmployee(a.clientId, { name: 'Other Person' });
    const policy = await makePolicy(a.clientId);
    await makeMember(a.clientId, policy.id, e);
    await makeMember(a.clientId, policy.id, other);

    expect((await update(e.id, { name: 'New Name' })).status).to.equal(200);

    const rows = await sql(
      'select employee_id, employee_name from policy_members where policy_id = ? order by 2',
      [policy.id],
    );
    expect(rows).to.deep.equal([
      { employee_id: e.id, employee_name: 'New Name' },
      { employee_id: other.id, employee_name: 'Other Person' },
    ]);
  });

  describe('validation', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ email: 'nope' }, 'email: must be a valid email address'],
      [{ personal_email: 'x@' }, 'personal_email: must be a valid email address'],
      [{ phone_number: '12345' }, 'phone_number: must be 10 to 15 digits with an optional leading +'],
      [{ date_of_birth: '2025-02-30' }, 'date_of_birth: must be a real calendar date in YYYY-MM-DD form'],
      [
        { last_active_date: '2026/11/01' },
        'last_active_date: must be a real calendar date in YYYY-MM-DD form',
      ],
      [{ date_of_birth: '2026-11-23' }, 'date_of_birth: must be a date in the past'],
      [{ gender: 'FEMALE' }, 'gender: must be one of GENDER_MALE, GENDER_FEMALE, GENDER_OTHER'],
      [
        { status: 'INACTIVE' },
        'status: must be one of EMPLOYEE_STATUS_ACTIVE, EMPLOYEE_STATUS_INACTIVE, EMPLOYEE_STATUS_INACTIVE_ONGOING_CLAIM',
      ],
      [{ name: '' }, 'name: must not be empty'],
      [{ name: 7 }, 'name: must be a string'],
      [{ employee_id: 'E-2' }, 'employee_id: is not an allowed field'],
      [{ is_admin: true }, 'is_admin: is not an allowed field'],
      // D16: a leaving date comes only with the inactive status it belongs to.
      [{ date_of_leaving: '2026-01-01' }, 'date_of_leaving: requires an inactive status in the same request'],
      [
        { status: 'EMPLOYEE_STATUS_ACTIVE', date_of_leaving: '2026-01-01' },
        'date_of_leaving: requires an inactive status in the same request',
      ],
    ];
    for (const [body, detail] of cases) {
      it(`rejects ${JSON.stringify(body)} and changes nothing`, async () => {
        const id = await employee();
        const before = await profile(id);
        const res = await update(id, { department: 'Changed', ...body });
        expect(res.status).to.equal(400);
        expect(res.body).to.deep.equal({
          type: 'VALIDATION_ERROR',
          title: 'Validation Failed',
          detail,
          instance: path(id),
        });
        expect(await profile(id)).to.deep.equal(before);
      });
    }

    it('rejects malformed JSON', async () => {
      const id = await employee();
      const res = await http.put(path(id), {
        token: tokenA(),
        rawBody: '{"name": ',
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).to.equal(400);
      expect(res.body).to.include({ type: 'VALIDATION_ERROR', title: 'Malformed JSON' });
    });
  });

  it('answers an unknown id and another client’s employee with the same 404 and changes nothing (D1)', async () => {
    const theirs = await makeEmployee(b.clientId, { name: 'Their Employee' });
    const unknown = await update('emp_doesnotexist000000000', { name: 'X' });
    const foreign = await update(theirs.id, { name: 'X' });

    expect(unknown.status).to.equal(404);
    expect(foreign.status).to.equal(404);
    expect(foreign.body).to.deep.equal({
      type: 'NOT_FOUND',
      title: 'Employee Not Found',
      detail: '',
      instance: path(theirs.id),
    });
    expect({ ...unknown.body, instance: '' }).to.deep.equal({ ...foreign.body, instance: '' });
    const [row] = await sql('select name from employees where id = ?', [theirs.id]);
    expect(row.name).to.equal('Their Employee');
  });

  it('admits employee.update and employee.all, refuses employee.get and employee.create with 403', async () => {
    const id = await employee();
    expect((await update(id, { department: 'A' }, tokenA(['employee.all']))).status).to.equal(200);
    const res = await update(id, { department: 'B' }, tokenA(['employee.get', 'employee.create']));
    expect(res.status).to.equal(403);
    expect(res.body.detail).to.include('employee.update').and.to.include('employee.all');
    expect((await profile(id)).department).to.equal('A');
  });
});
