import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { makeClient, makeEmployee, sql, type TestClient } from '../support/factories.js';
import { client, type HttpClient } from '../support/http.js';
import { stack } from '../support/stack.js';

const PATH = '/v1/client/employees/profile';
const profilePath = (id: string) => `${PATH}?employee_id=${encodeURIComponent(id)}`;

describe('GET /v1/client/employees/profile', () => {
  let http: HttpClient;
  let a: TestClient;
  let b: TestClient;

  before(async () => {
    const api = await stack().startApi();
    http = client(api.url);
    [a, b] = await Promise.all([makeClient(), makeClient()]);
  });

  it('answers the Employee object of spec 2.4 with the documented spellings (D6)', async () => {
    const t = randomBytes(4).toString('hex');
    const body = {
      employee_id: `E-${t}`,
      name: 'Ravi Kumar',
      email: `ravi.${t}@example.com`,
      phone_number: '+919812345678',
      date_of_birth: '1988-02-29',
      gender: 'GENDER_MALE',
      designation: 'Engineer',
      department: 'Platform',
      date_of_joining: '2019-07-01',
      address: '4 Park Street, Kolkata',
      personal_email: `ravi.home.${t}@example.org`,
      personal_phone_number: '9876543210',
      status: 'EMPLOYEE_STATUS_ACTIVE',
      last_active_date: '2026-11-01',
    };
    const created = await http.post('/v1/client/employees', { token: a.token(), body });
    const id = created.body.payload.employee_id as string;
    const [{ user_id }] = await sql('select user_id from employees where id = ?', [id]);

    const res = await http.get(profilePath(id), { token: a.token(['employee.get']) });

    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({
      payload: {
        employee: {
          id,
          user_id,
          client_id: a.clientId,
          employee_id: body.employee_id,
          name: 'Ravi Kumar',
          email: body.email,
          phone_number: '+919812345678',
          date_of_birth: '1988-02-29',
          gender: 'MALE',
          designation: 'Engineer',
          department: 'Platform',
          date_of_joining: '2019-07-01',
          date_of_leaving: '',
          address: '4 Park Street, Kolkata',
          personal_email: body.personal_email,
          personal_phone_number: '9876543210',
          is_admin: false,
          status: 'ACTIVE',
          last_active_date: '2026-11-01',
        },
        // D16: an active employee has no exits to confirm.
        pending_exits: [],
        message: 'Employee fetched successfully',
        success: true,
      },
    });
  });

  it('answers "" for every optional field that was never set', async () => {
    const e = await makeEmployee(a.clientId);
    const res = await http.get(profilePath(e.id), { token: a.token() });
    expect(res.status).to.equal(200);
    const employee = res.body.payload.employee;
    for (const field of [
      'designation',
      'department',
      'date_of_joining',
      'date_of_leaving',
      'address',
      'personal_email',
      'personal_phone_number',
      'last_active_date',
    ]) {
      expect(employee[field], field).to.equal('');
    }
  });

  const spellings: [string, string][] = [
    ['FEMALE', 'GENDER_FEMALE'],
    ['OTHER', 'GENDER_OTHER'],
  ];
  for (const [stored, answered] of spellings) {
    it(`answers gender ${answered} for ${stored}`, async () => {
      const e = await makeEmployee(a.clientId, { gender: stored as 'FEMALE' | 'OTHER' });
      const res = await http.get(profilePath(e.id), { token: a.token() });
      expect(res.body.payload.employee.gender).to.equal(answered);
    });
  }

  it('answers a status without prefix and the stored date_of_leaving once inactive', async () => {
    const e = await makeEmployee(a.clientId);
    await sql(
      `update employees set status = 'INACTIVE_ONGOING_CLAIM', date_of_leaving = '2026-10-31' where id = ?`,
      [e.id],
    );
    const res = await http.get(profilePath(e.id), { token: a.token() });
    expect(res.body.payload.employee).to.include({
      status: 'INACTIVE_ONGOING_CLAIM',
      date_of_leaving: '2026-10-31',
    });
  });

  it('answers is_admin true when an admin command set it', async () => {
    const e = await makeEmployee(a.clientId);
    await sql('update employees set is_admin = true where id = ?', [e.id]);
    const res = await http.get(profilePath(e.id), { token: a.token() });
    expect(res.body.payload.employee.is_admin).to.equal(true);
  });

  for (const [label, path] of [
    ['without employee_id', PATH],
    ['with an empty employee_id', `${PATH}?employee_id=`],
    ['with a blank employee_id', `${PATH}?employee_id=%20%20`],
  ] as const) {
    it(`answers 400 MISSING_EMPLOYEE_ID ${label}`, async () => {
      const res = await http.get(path, { token: a.token() });
      expect(res.status).to.equal(400);
      expect(res.body).to.include({
        type: 'MISSING_EMPLOYEE_ID',
        title: 'Employee ID is required',
        instance: PATH,
      });
      expect(res.body.detail).to.equal('employee_id: is required');
    });
  }

  it('answers an unknown id and another client’s employee with the same 404 (D1)', async () => {
    const theirs = await makeEmployee(b.clientId);
    const unknown = await http.get(profilePath('emp_doesnotexist000000000'), { token: a.token() });
    const foreign = await http.get(profilePath(theirs.id), { token: a.token() });

    const expected = { type: 'NOT_FOUND', title: 'Employee Not Found', detail: '', instance: PATH };
    expect(unknown.status).to.equal(404);
    expect(unknown.body).to.deep.equal(expected);
    expect(foreign.status).to.equal(404);
    expect(foreign.body).to.deep.equal(expected);

    const own = await http.get(profilePath(theirs.id), { token: b.token() });
    expect(own.status).to.equal(200);
  });

  it('admits employee.get and employee.all and refuses other scopes with 403', async () => {
    const e = await makeEmployee(a.clientId);
    expect((await http.get(profilePath(e.id), { token: a.token(['employee.all']) })).status).to.equal(200);
    const res = await http.get(profilePath(e.id), { token: a.token(['employee.create', 'employee.update']) });
    expect(res.status).to.equal(403);
    expect(res.body).to.include({ type: 'FORBIDDEN', title: 'Insufficient Scope' });
    expect(res.body.detail).to.include('employee.get').and.to.include('employee.all');
  });

  it('answers 401 without a token', async () => {
    const res = await http.get(profilePath('emp_x'));
    expect(res.status).to.equal(401);
  });
});
