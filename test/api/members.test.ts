import { expect } from 'chai';
import type { Gender, MemberStatus } from '../../domain/enums.js';
import {
  makeClient,
  makeDependent,
  makeEmployee,
  makeMember,
  makePolicy,
  sql,
  type TestClient,
} from '../support/factories.js';
import { client, type HttpClient } from '../support/http.js';
import { getPage, walkBothWays, withQuery } from '../support/paging.js';
import { stack } from '../support/stack.js';

interface Row {
  id: string;
  employeeId: string;
  name: string;
  email: string;
  rank: 0 | 1;
  status: MemberStatus;
}

interface Fixture {
  client: TestClient;
  token: string;
  policyId: string;
  path: string;
  rows: Row[];
  employees: { id: string; name: string; email: string; dependents: number }[];
}

/** D5 order: employee name, employee, employee row before dependents, then id. */
const cmp = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
const byMemberOrder = (a: Row, b: Row) =>
  cmp(a.name, b.name) || cmp(a.employeeId, b.employeeId) || cmp(a.rank, b.rank) || cmp(a.id, b.id);
const sorted = (rows: Row[]) => [...rows].sort(byMemberOrder).map((r) => r.id);

const statusOf = (i: number): MemberStatus =>
  i % 4 === 3 ? 'inactive' : i % 9 === 5 ? 'suspended' : 'active';

/**
 * Exactly n member rows on one policy of a new client: employees with 0, 1 or 2 dependents, names
 * shared by pairs of employees (so employee_id breaks ties) and every tenth on another email domain.
 */
async function fixture(n: number): Promise<Fixture> {
  const c = await makeClient();
  const policy = await makePolicy(c.clientId);
  const rows: Row[] = [];
  const employees: Fixture['employees'] = [];
  for (let i = 0; rows.length < n; i++) {
    const name = `Member ${String(Math.floor(i / 2)).padStart(3, '0')}`;
    const email = `m${i}.${c.clientId.slice(4, 10)}@${i % 10 === 0 ? 'special' : 'corp'}.example.com`;
    const e = await makeEmployee(c.clientId, { name, email });
    const status = statusOf(rows.length);
    const own = await makeMember(c.clientId, policy.id, e, { status });
    rows.push({ id: own.id, employeeId: e.id, name, email, rank: 0, status });
    const dependents = Math.min(i % 3, n - rows.length);
    for (let d = 0; d < dependents; d++) {
      const dep = await makeDependent(c.clientId, e.id);
      const st = statusOf(rows.length);
      const m = await makeMember(c.clientId, policy.id, e, { dependentId: dep.id, status: st });
      rows.push({ id: m.id, employeeId: e.id, name, email, rank: 1, status: st });
    }
    employees.push({ id: e.id, name, email, dependents });
  }
  return {
    client: c,
    token: c.token(),
    policyId: policy.id,
    path: `/v1/policy/${policy.id}/members`,
    rows,
    employees,
  };
}

describe('GET /v1/policy/{policy_id}/members (list policy members)', () => {
  let http: HttpClient;
  before(async () => {
    http = client((await stack().startApi()).url);
  });

  describe('keyset paging (D5)', () => {
    for (const n of [0, 1, 10, 11, 250]) {
      it(`visits each of ${n} members exactly once, in order, forward then backward`, async function () {
        this.timeout(120_000);
        const f = await fixture(n);
        expect(f.rows).to.have.length(n);
        const { pages, total } = await walkBothWays(http, f.token, f.path, 'members');
        expect(total).to.equal(n);
        expect(pages.flat()).to.deep.equal(sorted(f.rows));
        expect(pages.length).to.equal(Math.max(1, Math.ceil(n / 10)));
      });
    }

    it('sorts by name ignoring case, and pages that order both ways', async () => {
      const c = await makeClient();
      const policy = await makePolicy(c.clientId);
      const rows: Row[] = [];
      const names = ['bala', 'Asha', 'chitra', 'Bala', 'ASHA', 'arjun', 'Zed', 'dev', 'asha'];
      for (const [i, name] of names.entries()) {
        const e = await makeEmployee(c.clientId, { name });
        const own = await makeMember(c.clientId, policy.id, e);
        rows.push({ id: own.id, employeeId: e.id, name, email: e.email, rank: 0, status: 'active' });
        if (i % 2 === 0) {
          const dep = await makeDependent(c.clientId, e.id);
          const m = await makeMember(c.clientId, policy.id, e, { dependentId: dep.id });
          rows.push({ id: m.id, employeeId: e.id, name, email: e.email, rank: 1, status: 'active' });
        }
      }
      const caseless = (r: Row) => ({ ...r, name: r.name.toLowerCase() });
      const expected = [...rows].sort((a, b) => byMemberOrder(caseless(a), caseless(b))).map((r) => r.id);
      const path = `/v1/policy/${policy.id}/members`;
      const { pages } = await walkBothWays(http, c.token(), path, 'members', { limit: '3' });
      expect(pages.flat()).to.deep.equal(expected);
      const byId = new Map(rows.map((r) => [r.id, r.name]));
      expect([...new Set(pages.flat().map((id) => byId.get(id)!.toLowerCase()))]).to.deep.equal([
        'arjun',
        'asha',
        'bala',
        'chitra',
        'dev',
        'zed',
      ]);
    });

    it('puts each employee row before that employee’s dependents', async () => {
      const f = await fixture(30);
      const { pages } = await walkBothWays(http, f.token, f.path, 'members', { limit: '7' });
      const byId = new Map(f.rows.map((r) => [r.id, r]));
      const seen = new Set<string>();
      for (const id of pages.flat()) {
        const row = byId.get(id)!;
        if (row.rank === 1) expect(seen.has(row.employeeId), 'employee row came first').to.equal(true);
        seen.add(row.employeeId);
      }
    });

    it('has exact flags at both ends and rejects bad limits and cursors', async () => {
      const f = await fixture(10);
      const first = await getPage(http, f.token, f.path, 'members', {});
      expect([first.has_previous, first.has_next]).to.deep.equal([false, false]);
      const after = await getPage(http, f.token, f.path, 'members', { start_cursor: first.end_cursor });
      expect([after.ids.length, after.has_previous, after.has_next]).to.deep.equal([0, true, false]);
      const before = await getPage(http, f.token, f.path, 'members', { last_cursor: first.start_cursor });
      expect([before.ids.length, before.has_previous, before.has_next]).to.deep.equal([0, false, true]);

      const bad = async (query: Record<string, string>, detail: RegExp) => {
        const res = await http.get(withQuery(f.path, query), { token: f.token });
        expect(res.status, JSON.stringify(query)).to.equal(400);
        expect(res.body.type).to.equal('VALIDATION_ERROR');
        expect(res.body.detail).to.match(detail);
      };
      await bad({ limit: '0' }, /^limit: must be an integer from 1 to 100/);
      await bad({ limit: '500' }, /^limit: /);
      await bad({ limit: 'abc' }, /^limit: /);
      await bad({ start_cursor: first.end_cursor, last_cursor: first.start_cursor }, /^last_cursor: /);
      await bad({ start_cursor: `${first.end_cursor.slice(0, -3)}abc` }, /^start_cursor: /);

      // A cursor of another policy's members, or of the policy list, is not a cursor of this list.
      const other = await makePolicy(f.client.clientId);
      const otherPath = `/v1/policy/${other.id}/members`;
      const res = await http.get(withQuery(otherPath, { start_cursor: first.end_cursor }), {
        token: f.token,
      });
      expect(res.status).to.equal(400);
      expect(res.body.detail).to.match(/^start_cursor: /);
      const policies = await getPage(http, f.token, '/v1/policy/', 'policies', {
        client_id: f.client.clientId,
        limit: '1',
      });
      await bad({ start_cursor: policies.end_cursor }, /^start_cursor: /);
    });
  });

  describe('filters and search', () => {
    let f: Fixture;
    before(async function () {
      this.timeout(60_000);
      f = await fixture(120);
    });
    const expectWalk = async (query: Record<string, string>, keep: (r: Row) => boolean) => {
      const expected = sorted(f.rows.filter(keep));
      const { pages, total } = await walkBothWays(http, f.token, f.path, 'members', { limit: '6', ...query });
      expect(pages.flat()).to.deep.equal(expected);
      expect(total).to.equal(expected.length);
      return expected;
    };

    it('filters by status in upper case and answers rows in lower case', async () => {
      for (const [filter, stored] of [
        ['ACTIVE', 'active'],
        ['INACTIVE', 'inactive'],
        ['SUSPENDED', 'suspended'],
      ] as const) {
        const got = await expectWalk({ status: filter }, (r) => r.status === stored);
        expect(got).to.not.be.empty;
        const page = await http.get(withQuery(f.path, { status: filter }), { token: f.token });
        for (const row of page.body.payload.members) expect(row.status).to.equal(stored);
      }
    });

    it('answers an unknown status 400 naming status', async () => {
      for (const status of ['POLICY_STATUS_ACTIVE', 'DELETED', '']) {
        const res = await http.get(withQuery(f.path, { status }), { token: f.token });
        expect(res.status).to.equal(400);
        expect(res.body.detail).to.equal('status: must be one of ACTIVE, INACTIVE, SUSPENDED');
      }
    });

    it('restricts to one employee and that employee’s dependents', async () => {
      const withTwo = f.employees.find((e) => e.dependents === 2)!;
      const got = await expectWalk(
        { employee_id: withTwo.id, limit: '2' },
        (r) => r.employeeId === withTwo.id,
      );
      expect(got).to.have.length(3);
      expect(f.rows.find((r) => r.id === got[0])!.rank).to.equal(0);
      await expectWalk({ employee_id: 'emp_unknown' }, () => false);
      const res = await http.get(withQuery(f.path, { employee_id: '' }), { token: f.token });
      expect(res.status).to.equal(400);
      expect(res.body.detail).to.match(/^employee_id: /);
    });

    it('searches employee name and email case-insensitively, dependents included', async () => {
      const byName = await expectWalk({ search: 'member 01' }, (r) => r.name.startsWith('Member 01'));
      expect(byName.length).to.be.above(10);
      const byEmail = await expectWalk({ search: '@SPECIAL.example' }, (r) => r.email.includes('@special.'));
      expect(byEmail.length).to.be.above(3);
      await expectWalk({ search: 'no such person' }, () => false);
      await expectWalk({ search: '%' }, () => false);
    });

    it('combines search, status and employee filters with paging; total_count follows the filters', async () => {
      await expectWalk(
        { search: 'member 0', status: 'ACTIVE' },
        (r) => r.name.startsWith('Member 0') && r.status === 'active',
      );
      const e = f.employees.find((x) => x.dependents === 2)!;
      await expectWalk(
        { employee_id: e.id, status: 'ACTIVE', search: e.email.toUpperCase(), limit: '1' },
        (r) => {
          return r.employeeId === e.id && r.status === 'active';
        },
      );
    });
  });

  describe('row fields (spec 2.3)', () => {
    it('gives employee rows every field and dependent rows the sample’s fields', async () => {
      const c = await makeClient();
      const policy = await makePolicy(c.clientId);
      const shapes: [Gender, string][] = [
        ['MALE', 'MALE'],
        ['FEMALE', 'GENDER_FEMALE'],
        ['OTHER', 'GENDER_OTHER'],
      ];
      const made: { id: string; gender: string; member: string }[] = [];
      for (const [i, [gender, shown]] of shapes.entries()) {
        const e = await makeEmployee(c.clientId, {
          name: `Zed ${i}`,
          gender,
          dateOfBirth: '1988-02-29',
          department: i === 0 ? 'Finance' : '',
          designation: i === 0 ? 'Analyst' : '',
        });
        const m = await makeMember(c.clientId, policy.id, e, { sumInsured: '500000.00' });
        made.push({ id: e.id, gender: shown, member: m.id });
      }
      const first = made[0]!;
      const dep = await makeDependent(c.clientId, first.id, { name: 'Dependent Person' });
      const depRow = await makeMember(
        c.clientId,
        policy.id,
        { id: first.id, name: 'Zed 0' },
        { dependentId: dep.id },
      );
      await sql(
        "update policy_members set insurer_member_id = 'INS-M-1', remaining_sum_insured = 412345.5 where id = ?",
        [first.member],
      );

      const res = await http.get(`/v1/policy/${policy.id}/members`, {
        token: c.token(['policy.members.list']),
      });
      expect(res.status).to.equal(200);
      expect(res.body.payload).to.include({ message: 'Policy members fetched successfully', success: true });
      const members = res.body.payload.members as Record<string, unknown>[];
      expect(members.map((m) => m.id)).to.deep.equal([
        first.member,
        depRow.id,
        made[1]!.member,
        made[2]!.member,
      ]);

      const employeeRow = members[0]!;
      expect(employeeRow).to.deep.equal({
        id: first.member,
        client_id: c.clientId,
        policy_id: policy.id,
        employee_id: first.id,
        dependent_id: null,
        endorsement_id: null,
        insurer_member_id: 'INS-M-1',
        coverage_start_date: '2026-04-01',
        coverage_end_date: '2027-03-31',
        premium_amount: 1000,
        sum_insured: 500000,
        remaining_sum_insured: 412345.5,
        status: 'active',
        employee_name: 'Zed 0',
        employee_email: (await sql('select email from employees where id = ?', [first.id]))[0].email,
        employee_dob: '1988-02-29',
        employee_gender: 'MALE',
        employee_department: 'Finance',
        employee_designation: 'Analyst',
      });
      expect(members[2]).to.include({
        employee_gender: 'GENDER_FEMALE',
        employee_department: null,
        employee_designation: null,
      });
      expect(members[3]).to.include({ employee_gender: 'GENDER_OTHER' });

      expect(members[1]).to.deep.equal({
        id: depRow.id,
        client_id: c.clientId,
        policy_id: policy.id,
        employee_id: first.id,
        dependent_id: dep.id,
        coverage_start_date: '2026-04-01',
        coverage_end_date: '2027-03-31',
        status: 'active',
        employee_name: 'Zed 0',
        employee_email: employeeRow.employee_email,
      });
    });
  });

  describe('tenancy (D1) and scopes (D2)', () => {
    it('answers another client’s policy, an unknown one and a malformed id alike: 404 Policy Not Found', async () => {
      const a = await fixture(2);
      const b = await fixture(3);
      for (const id of [b.policyId, 'pol_unknown', 'members']) {
        const res = await http.get(`/v1/policy/${id}/members`, { token: a.token });
        expect(res.status, id).to.equal(404);
        expect(res.body).to.deep.equal({
          type: 'NOT_FOUND',
          title: 'Policy Not Found',
          detail: '',
          instance: `/v1/policy/${id}/members`,
        });
      }
      const own = await getPage(http, b.token, b.path, 'members', {});
      expect(own.ids.sort()).to.deep.equal(b.rows.map((r) => r.id).sort());
    });

    it('never shows another client’s rows even on a policy id they share by mistake', async () => {
      // Rows are filtered by the token's client in SQL, not only through the policy.
      const a = await fixture(2);
      const b = await makeClient();
      const e = await makeEmployee(b.clientId);
      await makeMember(b.clientId, a.policyId, e);
      const page = await getPage(http, a.token, a.path, 'members', {});
      expect(page.ids.sort()).to.deep.equal(a.rows.map((r) => r.id).sort());
      expect(page.total_count).to.equal(2);
    });

    it('admits policy.members.list and policy.all only', async () => {
      const f = await fixture(1);
      for (const scopes of [['policy.members.list'], ['policy.all']] as const) {
        expect((await http.get(f.path, { token: f.client.token(scopes) })).status).to.equal(200);
      }
      for (const scopes of [['policy.get'], ['policy.list']] as const) {
        const res = await http.get(f.path, { token: f.client.token(scopes) });
        expect(res.status).to.equal(403);
        expect(res.body.title).to.equal('Insufficient Scope');
      }
    });
  });
});
