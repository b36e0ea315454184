import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { fixedClock } from '../../domain/clock.js';
import type { Scope } from '../../domain/scopes.js';
import { makeClient, sql, type TestClient } from '../support/factories.js';
import { client, type HttpClient } from '../support/http.js';
import { stack } from '../support/stack.js';

const PATH = '/v1/client/employees';
const tag = () => randomBytes(4).toString('hex');

function validBody(o: Record<string, unknown> = {}): Record<string, unknown> {
  const t = tag();
  return {
    employee_id: `E-${t}`,
    name: 'Asha Rao',
    email: `asha.${t}@example.com`,
    phone_number: '+919812345678',
    date_of_birth: '1990-05-17',
    gender: 'GENDER_FEMALE',
    status: 'EMPLOYEE_STATUS_ACTIVE',
    ...o,
  };
}

const without = (body: Record<string, unknown>, field: string) => {
  const copy = { ...body };
  delete copy[field];
  return copy;
};

const countEmployees = async (clientId: string) =>
  Number((await sql('select count(*)::int as n from employees where client_id = ?', [clientId]))[0].n);

const tokenId = (token: string) => (jwt.decode(token) as { jti: string }).jti;

/** A value as a test's title shows it: JSON, with every character outside printable ASCII escaped. */
const shown = (v: unknown): string =>
  JSON.stringify(v).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

describe('POST /v1/client/employees', () => {
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

  const create = (body: unknown, token = tokenA()) => http.post(PATH, { token, body });

  async function expectValidationError(body: unknown, detail: string | RegExp) {
    const before = await countEmployees(a.clientId);
    const res = await create(body);
    expect(res.status).to.equal(400);
    expect(res.body.type).to.equal('VALIDATION_ERROR');
    expect(res.body.title).to.equal('Validation Failed');
    expect(res.body.instance).to.equal(PATH);
    if (typeof detail === 'string') expect(res.body.detail).to.equal(detail);
    else expect(res.body.detail).to.match(detail);
    expect(await countEmployees(a.clientId)).to.equal(before);
  }

  describe('a new employee', () => {
    it('is created with its user account and an audit entry naming the fields, not their values', async () => {
      const token = tokenA(['employee.create']);
      const body = validBody({ email: `Mixed.Case.${tag()}@Example.com`, designation: 'Engineer' });
      const res = await create(body, token);

      expect(res.status).to.equal(200);
      expect(res.body.payload).to.have.all.keys('employee_id', 'message', 'success');
      expect(res.body.payload.message).to.equal('Employee created successfully');
      expect(res.body.payload.success).to.equal(true);
      const id = res.body.payload.employee_id as string;
      expect(id).to.match(/^emp_[a-z0-9]{10,}$/);

      const [row] = await sql(
        `select e.client_id, e.employee_code, e.name, e.email, e.designation, e.status, e.date_of_leaving,
                u.email_key
           from employees e join users u on u.id = e.user_id where e.id = ?`,
        [id],
      );
      expect(row).to.deep.equal({
        client_id: a.clientId,
        employee_code: body.employee_id,
        name: 'Asha Rao',
        email: body.email,
        designation: 'Engineer',
        status: 'ACTIVE',
        date_of_leaving: null,
        email_key: (body.email as string).toLowerCase(),
      });

      const audit = await sql('select * from audit_events where entity = ? and entity_id = ?', [
        'employee',
        id,
      ]);
      expect(audit).to.have.length(1);
      expect(audit[0]).to.include({
        client_id: a.clientId,
        action: 'create',
        actor_token_id: tokenId(token),
      });
      expect(audit[0].changed_fields).to.include.members(['employee_code', 'name', 'email', 'designation']);
      expect(audit[0].changed_fields).not.to.include('department');
      expect(JSON.stringify(audit[0])).not.to.include('Asha');
      expect(JSON.stringify(audit[0])).not.to.include('example.com');
    });

    it('accepts every optional field', async () => {
      const res = await create(
        validBody({
          designation: 'Analyst',
          department: 'Finance',
          date_of_joining: '2020-01-06',
          address: '12 MG Road, Bengaluru',
          personal_email: 'asha.personal@example.org',
          personal_phone_number: '9876543210',
          last_active_date: '2026-11-20',
          gender: 'GENDER_OTHER',
        }),
      );
      expect(res.status).to.equal(200);
      const [row] = await sql(
        `select department, date_of_joining, address, personal_email, personal_phone_number, last_active_date, gender
           from employees where id = ?`,
        [res.body.payload.employee_id],
      );
      expect(row).to.deep.equal({
        department: 'Finance',
        date_of_joining: '2020-01-06',
        address: '12 MG Road, Bengaluru',
        personal_email: 'asha.personal@example.org',
        personal_phone_number: '9876543210',
        last_active_date: '2026-11-20',
        gender: 'OTHER',
      });
    });

    it('created INACTIVE takes today in Asia/Kolkata as its date_of_leaving', async () => {
      const res = await create(validBody({ status: 'EMPLOYEE_STATUS_INACTIVE' }));
      expect(res.status).to.equal(200);
      const [row] = await sql('select status, date_of_leaving from employees where id = ?', [
        res.body.payload.employee_id,
      ]);
      expect(row).to.deep.equal({ status: 'INACTIVE', date_of_leaving: '2026-11-23' });
    });

    it('accepts a date of birth of yesterday (Kolkata)', async () => {
      const res = await create(validBody({ date_of_birth: '2026-11-22' }));
      expect(res.status).to.equal(200);
      expect(res.body.payload).to.include({ message: 'Employee created successfully', success: true });
      const [row] = await sql('select date_of_birth from employees where id = ?', [
        res.body.payload.employee_id,
      ]);
      expect(row).to.deep.equal({ date_of_birth: '2026-11-22' });
    });
  });

  describe('validation (every detail names the field and the rule)', () => {
    for (const field of [
      'employee_id',
      'name',
      'email',
      'phone_number',
      'date_of_birth',
      'gender',
      'status',
    ]) {
      it(`rejects a missing ${field}`, async () => {
        await expectValidationError(without(validBody(), field), `${field}: is required`);
      });
    }

    it('rejects an empty name', async () => {
      await expectValidationError(validBody({ name: '   ' }), 'name: must not be empty');
    });

    const genders = 'must be one of GENDER_MALE, GENDER_FEMALE, GENDER_OTHER';
    const statuses = 'must be one of EMPLOYEE_STATUS_ACTIVE, EMPLOYEE_STATUS_INACTIVE';
    const enumCases: [string, unknown, string][] = [
      ['gender', 'MALE', `gender: ${genders}`],
      ['gender', 'gender_male', `gender: ${genders}`],
      ['status', 'ACTIVE', `status: ${statuses}`],
      ['status', 'EMPLOYEE_STATUS_INACTIVE_ONGOING_CLAIM', `status: ${statuses}`],
    ];
    for (const [field, value, detail] of enumCases) {
      it(`rejects ${field} ${String(value)}`, async () => {
        await expectValidationError(validBody({ [field]: value }), detail);
      });
    }

    for (const field of ['email', 'personal_email']) {
      for (const value of ['not-an-email', 'a@', 'two@@example.com']) {
        it(`rejects ${field} ${value}`, async () => {
          await expectValidationError(
            validBody({ [field]: value }),
            `${field}: must be a valid email address`,
          );
        });
      }
    }

    for (const field of ['phone_number', 'personal_phone_number']) {
      for (const value of ['98765', '+91-98765-43210', 'phone', '1234567890123456']) {
        it(`rejects ${field} ${value}`, async () => {
          await expectValidationError(
            validBody({ [field]: value }),
            `${field}: must be 10 to 15 digits with an optional leading +`,
          );
        });
      }
    }

    for (const field of ['date_of_birth', 'date_of_joining', 'last_active_date']) {
      for (const value of ['2025-02-30', '2023-13-01', '17-05-1990', '1990-5-17', '1990-05-17T00:00:00Z']) {
        it(`rejects ${field} ${value}`, async () => {
          await expectValidationError(
            validBody({ [field]: value }),
            `${field}: must be a real calendar date in YYYY-MM-DD form`,
          );
        });
      }
    }

    it('rejects a date of birth of today (Kolkata) or later', async () => {
      await expectValidationError(
        validBody({ date_of_birth: '2026-11-23' }),
        'date_of_birth: must be a date in the past',
      );
      await expectValidationError(
        validBody({ date_of_birth: '2030-01-01' }),
        'date_of_birth: must be a date in the past',
      );
    });

    for (const field of ['id', 'client_id', 'is_admin', 'date_of_leaving']) {
      it(`rejects the unknown field ${field}`, async () => {
        await expectValidationError(validBody({ [field]: 'x' }), `${field}: is not an allowed field`);
      });
    }

    const wrongTypes: [string, unknown, string][] = [
      ['employee_id', 1234, 'employee_id: must be a string'],
      ['name', 42, 'name: must be a string'],
      ['name', null, 'name: must be a string'],
      ['email', ['a@example.com'], 'email: must be a valid email address'],
      ['phone_number', 919812345678, 'phone_number: must be a string'],
      ['date_of_birth', 19900517, 'date_of_birth: must be a date string in YYYY-MM-DD form'],
      ['gender', 1, `gender: ${genders}`],
      ['status', true, `status: ${statuses}`],
      ['designation', { title: 'x' }, 'designation: must be a string'],
    ];
    for (const [field, value, detail] of wrongTypes) {
      it(`rejects ${field} of the wrong type (${JSON.stringify(value)})`, async () => {
        await expectValidationError(validBody({ [field]: value }), detail);
      });
    }

    it('rejects a body that is not an object', async () => {
      await expectValidationError([validBody()], 'body: must be an object');
    });

    it('rejects malformed JSON', async () => {
      const res = await http.post(PATH, {
        token: tokenA(),
        rawBody: '{"employee_id": "E-1",',
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal({
        type: 'VALIDATION_ERROR',
        title: 'Malformed JSON',
        detail: 'body: must be valid JSON',
        instance: PATH,
      });
    });

    it('rejects a 2 MiB body with 413', async () => {
      const res = await create(validBody({ address: 'x'.repeat(2 * 1024 * 1024) }));
      expect(res.status).to.equal(413);
      expect(res.body.type).to.equal('PAYLOAD_TOO_LARGE');
      expect(res.body.detail).to.match(/body.*1 MiB/);
      expect(res.body.instance).to.equal(PATH);
    });

    const unsafe: [string, string, string][] = [
      ['name', 'Asha \u202egnp.exe', 'name: must not contain bidirectional formatting characters'],
      ['name', 'Asha \u2066Rao\u2069', 'name: must not contain bidirectional formatting characters'],
      ['name', 'Asha\u0007Rao', 'name: must not contain control characters'],
      ['name', 'Asha\nRao', 'name: must not contain control characters'],
      ['name', 'Asha \ud800Rao', 'name: must not contain unpaired surrogate characters'],
      ['designation', 'Lead\u009b', 'designation: must not contain control characters'],
      ['department', 'Ops\udc00', 'department: must not contain unpaired surrogate characters'],
      ['address', '12 MG Road\u001b[2J', 'address: must not contain control characters'],
      ['address', '12 MG Road \u202d', 'address: must not contain bidirectional formatting characters'],
      ['employee_id', 'E-1\u0008', 'employee_id: must not contain control characters'],
      ['name', 'Asha\u200eRao', 'name: must not contain bidirectional formatting characters'],
      ['name', 'Asha\u200fRao', 'name: must not contain bidirectional formatting characters'],
      ['name', 'Asha\u061cRao', 'name: must not contain bidirectional formatting characters'],
      ['name', 'Asha\u200bRao', 'name: must not contain invisible characters'],
      ['name', 'Asha\ufeffRao', 'name: must not contain invisible characters'],
      ['name', 'Asha\u2060Rao', 'name: must not contain invisible characters'],
      ['name', 'Asha\u2028Rao', 'name: must not contain line or paragraph separators'],
      ['name', 'Asha\u2029Rao', 'name: must not contain line or paragraph separators'],
      ['designation', 'Lead\u200b', 'designation: must not contain invisible characters'],
      ['address', '12 MG Road\u2028Bengaluru', 'address: must not contain line or paragraph separators'],
      ['name', '=HYPERLINK("http://evil.example","x")', 'name: must not start with =, +, - or @'],
      ['name', "+cmd|' /C calc'!A0", 'name: must not start with =, +, - or @'],
      ['employee_id', '=1+2', 'employee_id: must not start with =, +, - or @'],
      ['employee_id', '@E1', 'employee_id: must not start with =, +, - or @'],
    ];
    for (const [field, value, detail] of unsafe) {
      it(`rejects ${field} ${shown(value)} naming the field`, async () => {
        await expectValidationError(validBody({ [field]: value }), detail);
      });
    }

    it('keeps line breaks in an address and names written in any script, Indic joiners included', async () => {
      const res = await create(
        validBody({ name: 'आशा राव क्\u200dष עברית 名前 😀', address: '12 MG Road,\r\nBengaluru\t560001' }),
      );
      expect(res.status).to.equal(200);
      // Stored as sent: the joiner, every script and the address's line breaks survive.
      const [row] = await sql('select name, address from employees where id = ?', [
        res.body.payload.employee_id,
      ]);
      expect(row).to.deep.equal({
        name: 'आशा राव क्\u200dष עברית 名前 😀',
        address: '12 MG Road,\r\nBengaluru\t560001',
      });
    });

    it('rejects an over-long address naming the limit', async () => {
      await expectValidationError(
        validBody({ address: 'x'.repeat(1001) }),
        'address: must be at most 1000 characters',
      );
    });
  });

  describe('idempotency (spec 4.6, D6)', () => {
    it('answers the same employee_id again with the existing id and changes nothing', async () => {
      const first = validBody();
      const created = await create(first);
      const id = created.body.payload.employee_id;
      const again = await create({ ...first, name: 'Someone Else', email: `other.${tag()}@example.com` });

      expect(again.status).to.equal(200);
      expect(again.body.payload).to.deep.equal({
        employee_id: id,
        message: 'Employee already exists',
        success: true,
      });
      const rows = await sql(
        'select id, name, email from employees where client_id = ? and employee_code = ?',
        [a.clientId, first.employee_id],
      );
      expect(rows).to.deep.equal([{ id, name: 'Asha Rao', email: first.email }]);
      const users = await sql(
        'select count(*)::int as n from users where client_id = ? and email_key like ?',
        [a.clientId, 'other.%'],
      );
      expect(users[0].n).to.equal(0);
    });

    it('answers the same email in another case with a new employee_id with the existing id', async () => {
      const first = validBody();
      const created = await create(first);
      const before = await countEmployees(a.clientId);
      const again = await create(validBody({ email: (first.email as string).toUpperCase() }));

      expect(again.status).to.equal(200);
      expect(again.body.payload).to.deep.equal({
        employee_id: created.body.payload.employee_id,
        message: 'Employee already exists',
        success: true,
      });
      expect(await countEmployees(a.clientId)).to.equal(before);
    });

    it('turns 20 concurrent identical creates into one employee and twenty answers with its id', async () => {
      const body = validBody();
      const results = await Promise.all(Array.from({ length: 20 }, () => create(body)));

      expect(results.map((r) => r.status)).to.deep.equal(Array(20).fill(200));
      const ids = new Set(results.map((r) => r.body.payload.employee_id));
      expect(ids.size).to.equal(1);
      const messages = results.map((r) => r.body.payload.message);
      expect(messages.filter((m) => m === 'Employee created successfully')).to.have.length(1);
      expect(messages.filter((m) => m === 'Employee already exists')).to.have.length(19);

      const [id] = [...ids];
      const rows = await sql('select id from employees where client_id = ? and employee_code = ?', [
        a.clientId,
        body.employee_id,
      ]);
      expect(rows).to.deep.equal([{ id }]);
      const users = await sql('select count(*)::int as n from users where client_id = ? and email_key = ?', [
        a.clientId,
        body.email,
      ]);
      expect(users[0].n).to.equal(1);
      const audit = await sql('select count(*)::int as n from audit_events where entity_id = ?', [id]);
      expect(audit[0].n).to.equal(1);
    });

    it('keeps clients apart: the same employee_id and email under another client is a new employee', async () => {
      const body = validBody();
      const mine = await create(body);
      const theirs = await create(body, b.token(undefined, clock));
      expect(theirs.status).to.equal(200);
      expect(theirs.body.payload.message).to.equal('Employee created successfully');
      expect(theirs.body.payload.employee_id).not.to.equal(mine.body.payload.employee_id);
      const [row] = await sql('select client_id from employees where id = ?', [
        theirs.body.payload.employee_id,
      ]);
      expect(row.client_id).to.equal(b.clientId);
    });
  });

  describe('authentication and scopes (D2)', () => {
    it('answers 401 without a token', async () => {
      const res = await http.post(PATH, { body: validBody() });
      expect(res.status).to.equal(401);
      expect(res.body.type).to.equal('UNAUTHORIZED');
    });

    it('answers 403 naming the scopes for a token without employee.create or employee.all', async () => {
      const res = await create(validBody(), tokenA(['employee.get', 'employee.update', 'policy.all']));
      expect(res.status).to.equal(403);
      expect(res.body).to.include({ type: 'FORBIDDEN', title: 'Insufficient Scope' });
      expect(res.body.detail).to.include('employee.create').and.to.include('employee.all');
    });

    it('admits employee.all', async () => {
      const res = await create(validBody(), tokenA(['employee.all']));
      expect(res.status).to.equal(200);
      expect(res.body.payload).to.include({ message: 'Employee created successfully', success: true });
      expect(
        await sql('select id from employees where id = ?', [res.body.payload.employee_id]),
      ).to.have.length(1);
    });
  });
});
