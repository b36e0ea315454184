import { expect } from 'chai';
import type { PolicyStatus } from '../../domain/enums.js';
import {
  makeClient,
  makePolicy,
  makeReferenceData,
  sql,
  type ReferenceData,
  type TestClient,
} from '../support/factories.js';
import { client, type HttpClient } from '../support/http.js';
import { getPage, walkBothWays, withQuery } from '../support/paging.js';
import { stack } from '../support/stack.js';

const LIST = '/v1/policy/';
const START_DATES = ['2026-04-01', '2025-10-01', '2026-01-15', '2024-04-01', '2026-04-01'];

interface Fixture {
  client: TestClient;
  token: string;
  policies: { id: string; policyNumber: string; startDate: string; status: PolicyStatus; insurer: string }[];
}

/** D5 order: start_date descending, then id descending (policies_page). */
const byListOrder = (a: Fixture['policies'][number], b: Fixture['policies'][number]) =>
  a.startDate !== b.startDate ? (a.startDate < b.startDate ? 1 : -1) : a.id < b.id ? 1 : -1;

const statusOf = (i: number): PolicyStatus =>
  i % 5 === 0 ? 'POLICY_STATUS_INACTIVE' : i % 7 === 0 ? 'POLICY_STATUS_SUSPENDED' : 'POLICY_STATUS_ACTIVE';

/** n policies of one new client, on two insurers, with repeated start dates so the id breaks ties. */
async function fixture(n: number): Promise<Fixture> {
  const c = await makeClient();
  const star = await makeReferenceData(c.clientId, { insurerName: 'Star Health' });
  const care = await makeReferenceData(c.clientId, { insurerName: 'Care Insurance' });
  const policies: Fixture['policies'] = [];
  for (let i = 0; i < n; i++) {
    const [reference, insurer]: [ReferenceData, string] =
      i % 3 === 0 ? [care, 'Care Insurance'] : [star, 'Star Health'];
    const startDate = START_DATES[i % START_DATES.length]!;
    const status = statusOf(i);
    const p = await makePolicy(c.clientId, {
      reference,
      startDate,
      endDate: '2027-06-30',
      status,
      policyNumber: `GHI/Plan-${String(i).padStart(3, '0')}`,
    });
    policies.push({ id: p.id, policyNumber: p.policyNumber, startDate, status, insurer });
  }
  return { client: c, token: c.token(), policies };
}

describe('GET /v1/policy/ (list policies)', () => {
  let http: HttpClient;
  const list = (f: Fixture, query: Record<string, string> = {}) =>
    getPage(http, f.token, LIST, 'policies', { client_id: f.client.clientId, ...query });

  before(async () => {
    http = client((await stack().startApi()).url);
  });

  describe('keyset paging (D5)', () => {
    for (const n of [0, 1, 10, 11, 250]) {
      it(`visits each of ${n} policies exactly once, in order, forward then backward`, async function () {
        this.timeout(60_000);
        const f = await fixture(n);
        const { pages, total } = await walkBothWays(http, f.token, LIST, 'policies', {
          client_id: f.client.clientId,
        });
        expect(total).to.equal(n);
        expect(pages.flat()).to.deep.equal([...f.policies].sort(byListOrder).map((p) => p.id));
        expect(pages.length).to.equal(Math.max(1, Math.ceil(n / 10)));
        for (const page of pages.slice(0, -1)) expect(page).to.have.length(10);
      });
    }

    it('pages by any limit from 1 to 100 and rejects others', async function () {
      this.timeout(60_000);
      const f = await fixture(11);
      const expected = [...f.policies].sort(byListOrder).map((p) => p.id);
      for (const limit of ['1', '3', '11', '100']) {
        const { pages } = await walkBothWays(http, f.token, LIST, 'policies', {
          client_id: f.client.clientId,
          limit,
        });
        expect(pages.flat()).to.deep.equal(expected);
        expect(pages[0]).to.have.length(Math.min(Number(limit), 11));
      }
      for (const limit of ['0', '101', 'ten', '1.5', '-1', '', ' 5']) {
        const res = await http.get(withQuery(LIST, { client_id: f.client.clientId, limit }), {
          token: f.token,
        });
        expect(res.status, `limit=${limit}`).to.equal(400);
        expect(res.body.type).to.equal('VALIDATION_ERROR');
        expect(res.body.detail).to.match(/^limit: must be an integer from 1 to 100/);
      }
    });

    it('has exact flags at both ends: past the last row and before the first', async () => {
      const f = await fixture(10);
      const first = await list(f);
      expect([first.has_previous, first.has_next]).to.deep.equal([false, false]);
      const after = await list(f, { start_cursor: first.end_cursor });
      expect(after.ids).to.deep.equal([]);
      expect([after.has_previous, after.has_next, after.total_count]).to.deep.equal([true, false, 10]);
      const before = await list(f, { last_cursor: first.start_cursor });
      expect(before.ids).to.deep.equal([]);
      expect([before.has_previous, before.has_next]).to.deep.equal([false, true]);
      const limited = await list(f, { limit: '9' });
      expect([limited.has_previous, limited.has_next]).to.deep.equal([false, true]);
      const tail = await list(f, { limit: '9', start_cursor: limited.end_cursor });
      expect(tail.ids).to.have.length(1);
      expect([tail.has_previous, tail.has_next]).to.deep.equal([true, false]);
    });

    it('keeps its place when the cursor row itself is gone', async () => {
      const f = await fixture(11);
      const expected = [...f.policies].sort(byListOrder).map((p) => p.id);
      const first = await list(f, { limit: '5' });
      await sql('delete from cd_ledger_entries where policy_id = ?', [first.ids[4]]);
      await sql('delete from policies where id = ?', [first.ids[4]]);
      const next = await list(f, { limit: '5', start_cursor: first.end_cursor });
      expect(next.ids).to.deep.equal(expected.slice(5, 10));
      const back = await list(f, { limit: '5', last_cursor: next.start_cursor });
      expect(back.ids).to.deep.equal(expected.slice(0, 4));
      expect(back.has_previous).to.equal(false);
    });

    it('treats an empty cursor as no cursor', async () => {
      const f = await fixture(3);
      const page = await list(f, { start_cursor: '', last_cursor: '' });
      expect(page.ids).to.have.length(3);
    });

    it('refuses both cursors at once, tampered cursors and cursors of another list', async () => {
      const f = await fixture(3);
      const other = await fixture(3);
      const page = await list(f, { limit: '1' });
      const bad = async (query: Record<string, string>, param: string) => {
        const res = await http.get(withQuery(LIST, { client_id: f.client.clientId, ...query }), {
          token: f.token,
        });
        expect(res.status, JSON.stringify(query)).to.equal(400);
        expect(res.body.type).to.equal('VALIDATION_ERROR');
        expect(res.body.detail).to.match(new RegExp(`^${param}: `));
      };
      await bad({ start_cursor: page.end_cursor, last_cursor: page.start_cursor }, 'last_cursor');
      const c = page.end_cursor;
      const flipped = (i: number) => `${c.slice(0, i)}${c[i] === 'A' ? 'B' : 'A'}${c.slice(i + 1)}`;
      for (const i of [0, 5, 20, c.length - 2, c.length - 1])
        await bad({ start_cursor: flipped(i) }, 'start_cursor');
      await bad({ start_cursor: `${c}A` }, 'start_cursor');
      await bad({ start_cursor: c.slice(0, -4) }, 'start_cursor');
      await bad({ last_cursor: 'not-a-cursor' }, 'last_cursor');
      await bad({ start_cursor: 'x'.repeat(3000) }, 'start_cursor');
      const foreign = await getPage(http, other.token, LIST, 'policies', {
        client_id: other.client.clientId,
      });
      await bad({ start_cursor: foreign.end_cursor }, 'start_cursor');
      await bad({ last_cursor: foreign.start_cursor }, 'last_cursor');
    });
  });

  describe('filters and search', () => {
    let f: Fixture;
    before(async function () {
      this.timeout(60_000);
      f = await fixture(40);
      const odd = await makePolicy(f.client.clientId, { policyNumber: 'ODD%_42', startDate: '2023-01-01' });
      f.policies.push({
        id: odd.id,
        policyNumber: 'ODD%_42',
        startDate: '2023-01-01',
        status: 'POLICY_STATUS_ACTIVE',
        insurer: 'Star Health',
      });
    });
    const expectWalk = async (
      query: Record<string, string>,
      keep: (p: Fixture['policies'][number]) => boolean,
    ) => {
      const expected = f.policies
        .filter(keep)
        .sort(byListOrder)
        .map((p) => p.id);
      const { pages, total } = await walkBothWays(http, f.token, LIST, 'policies', {
        client_id: f.client.clientId,
        limit: '4',
        ...query,
      });
      expect(pages.flat()).to.deep.equal(expected);
      expect(total).to.equal(expected.length);
      return expected;
    };

    it('filters by status, in any letter case', async () => {
      for (const status of [
        'POLICY_STATUS_ACTIVE',
        'POLICY_STATUS_INACTIVE',
        'POLICY_STATUS_SUSPENDED',
      ] as const) {
        const got = await expectWalk({ status }, (p) => p.status === status);
        expect(got).to.not.be.empty;
      }
      await expectWalk({ status: 'policy_status_inactive' }, (p) => p.status === 'POLICY_STATUS_INACTIVE');
    });

    it('searches the policy number and the insurer name case-insensitively', async () => {
      const byNumber = await expectWalk({ search: 'plan-01' }, (p) => p.policyNumber.includes('Plan-01'));
      expect(byNumber).to.have.length(10);
      const byInsurer = await expectWalk({ search: 'CARE ins' }, (p) => p.insurer === 'Care Insurance');
      expect(byInsurer).to.have.length(14);
      await expectWalk({ search: 'nothing like it' }, () => false);
      await expectWalk({ search: '   ' }, () => true);
    });

    it('takes % and _ in a search literally', async () => {
      expect(await expectWalk({ search: '%' }, (p) => p.policyNumber.includes('%'))).to.have.length(1);
      expect(await expectWalk({ search: '_' }, (p) => p.policyNumber.includes('_'))).to.have.length(1);
    });

    it('combines status and search with paging; total_count counts the filtered rows', async () => {
      const got = await expectWalk(
        { search: 'health', status: 'POLICY_STATUS_ACTIVE' },
        (p) => p.insurer === 'Star Health' && p.status === 'POLICY_STATUS_ACTIVE',
      );
      expect(got.length).to.be.above(4);
    });

    it('answers an unknown status 400 naming status', async () => {
      for (const status of ['ACTIVE', 'POLICY_STATUS_GONE', '']) {
        const res = await http.get(withQuery(LIST, { client_id: f.client.clientId, status }), {
          token: f.token,
        });
        expect(res.status).to.equal(400);
        expect(res.body).to.include({ type: 'VALIDATION_ERROR', title: 'Validation Failed' });
        expect(res.body.detail).to.match(
          /^status: must be one of POLICY_STATUS_ACTIVE, POLICY_STATUS_INACTIVE/,
        );
      }
    });

    it('answers a repeated or over-long search 400 naming search', async () => {
      const repeated = `${LIST}?client_id=${f.client.clientId}&search=a&search=b`;
      const res = await http.get(repeated, { token: f.token });
      expect(res.status).to.equal(400);
      expect(res.body.detail).to.equal('search: must be given once');
      const long = await http.get(
        withQuery(LIST, { client_id: f.client.clientId, search: 'x'.repeat(101) }),
        {
          token: f.token,
        },
      );
      expect(long.status).to.equal(400);
      expect(long.body.detail).to.match(/^search: /);
    });

    it('answers unknown or repeated query parameters 400 naming them', async () => {
      const base = `${LIST}?client_id=${f.client.clientId}`;
      const cases: [string, string][] = [
        [`${base}&limit=1&limit=2`, 'limit: must be given once'],
        [`${base}&page=2`, 'page: is not an allowed parameter'],
        [
          `${base}&Limit=2&sort=name`,
          'Limit: is not an allowed parameter; sort: is not an allowed parameter',
        ],
        [`/v1/policy/${f.policies[0]!.id}?expand=members`, 'expand: is not an allowed parameter'],
      ];
      for (const [path, detail] of cases) {
        const res = await http.get(path, { token: f.token });
        expect(res.status, path).to.equal(400);
        expect(res.body, path).to.include({ type: 'VALIDATION_ERROR', detail });
      }
    });
  });

  describe('client_id and tenancy (D1)', () => {
    it('requires client_id', async () => {
      const f = await fixture(1);
      for (const path of [LIST, `${LIST}?client_id=`, `${LIST}?client_id=%20`]) {
        const res = await http.get(path, { token: f.token });
        expect(res.status, path).to.equal(400);
        expect(res.body.type).to.equal('VALIDATION_ERROR');
        expect(res.body.detail).to.equal('client_id: is required');
      }
    });

    it('answers another client_id 403 Forbidden and lists only the caller’s own policies', async () => {
      const a = await fixture(3);
      const b = await fixture(2);
      const res = await http.get(withQuery(LIST, { client_id: b.client.clientId }), { token: a.token });
      expect(res.status).to.equal(403);
      expect(res.body).to.include({ type: 'FORBIDDEN', title: 'Forbidden', instance: LIST });
      const own = await list(a);
      expect(own.ids.sort()).to.deep.equal(a.policies.map((p) => p.id).sort());
      expect(own.total_count).to.equal(3);
    });
  });

  describe('scopes (D2)', () => {
    it('admits policy.list and policy.all only', async () => {
      const f = await fixture(1);
      const path = withQuery(LIST, { client_id: f.client.clientId });
      for (const scopes of [['policy.list'], ['policy.all']] as const) {
        expect((await http.get(path, { token: f.client.token(scopes) })).status).to.equal(200);
      }
      for (const scopes of [['policy.get'], ['policy.members.list'], ['employee.all']] as const) {
        const res = await http.get(path, { token: f.client.token(scopes) });
        expect(res.status).to.equal(403);
        expect(res.body).to.include({ type: 'FORBIDDEN', title: 'Insufficient Scope' });
      }
      expect((await http.get(path)).status).to.equal(401);
    });
  });

  describe('list view fields (spec 2.2)', () => {
    it('carries every list field with its type and spelling', async () => {
      const c = await makeClient({ name: 'Acme Corp' });
      const ref = await makeReferenceData(c.clientId, { insurerName: 'Star Health' });
      const p = await makePolicy(c.clientId, {
        reference: ref,
        policyNumber: 'STAR/GHI/0001',
        coverageType: 'COVERAGE_TYPE_ES',
        type: 'POLICY_TYPE_INDIVIDUAL',
        startDate: '2026-04-01',
        endDate: '2027-03-31',
        slabs: [
          { sum_insured: '300000.00', annual_premium: '3650.00' },
          { sum_insured: '250000.50', annual_premium: '3000.00' },
        ],
      });
      const res = await http.get(withQuery(LIST, { client_id: c.clientId }), { token: c.token() });
      expect(res.status).to.equal(200);
      expect(res.body.payload).to.have.all.keys(
        'policies',
        'total_count',
        'start_cursor',
        'end_cursor',
        'has_previous',
        'has_next',
        'message',
        'success',
      );
      expect(res.body.payload.message).to.equal('Policies fetched successfully');
      const [policy] = res.body.payload.policies;
      expect(policy).to.deep.equal({
        id: p.id,
        client_id: c.clientId,
        policy_number: 'STAR/GHI/0001',
        insurer_id: ref.insurerId,
        product_id: ref.productId,
        tpa_id: ref.tpaId,
        net_premium: 100000,
        gross_premium: 118000,
        coverage_type: 'COVERAGE_TYPE_ES',
        type: 'POLICY_TYPE_INDIVIDUAL',
        status: 'POLICY_STATUS_ACTIVE',
        start_date: '2026-04-01',
        end_date: '2027-03-31',
        sum_insured: ['300000', '250000.50'],
        insurer_name: 'Star Health',
        insurer_logo: 'https://logo.example.com/i.png',
        product_name: 'Group Care',
        tpa_name: 'Medi Assist',
        client_name: 'Acme Corp',
      });
    });
  });
});

describe('GET /v1/policy/{policy_id} (get policy)', () => {
  let http: HttpClient;
  before(async () => {
    http = client((await stack().startApi()).url);
  });

  it('answers the detail view: list fields plus the detail group, money as numbers', async () => {
    const c = await makeClient({ name: 'Detail Corp' });
    const p = await makePolicy(c.clientId, { cdBalance: '1234567.89', coverageType: 'COVERAGE_TYPE_ESCP' });
    const res = await http.get(`/v1/policy/${p.id}`, { token: c.token(['policy.get']) });
    expect(res.status).to.equal(200);
    expect(res.body.payload).to.have.all.keys('policy', 'message', 'success');
    expect(res.body.payload).to.include({ message: 'Policy fetched successfully', success: true });
    const { policy } = res.body.payload;
    expect(policy).to.have.all.keys(
      'id',
      'client_id',
      'policy_number',
      'insurer_id',
      'product_id',
      'tpa_id',
      'net_premium',
      'gross_premium',
      'coverage_type',
      'type',
      'status',
      'start_date',
      'end_date',
      'sum_insured',
      'insurer_name',
      'insurer_logo',
      'product_name',
      'tpa_name',
      'client_name',
      'inclusions',
      'exclusions',
      'terms_conditions',
      'policy_document_url',
      'network_hospital_url',
      'daycare_url',
      'cd_balance',
      'cd_held',
      'cd_available_balance',
    );
    expect(policy).to.include({
      id: p.id,
      client_id: c.clientId,
      policy_number: p.policyNumber,
      coverage_type: 'COVERAGE_TYPE_ESCP',
      client_name: 'Detail Corp',
      inclusions: 'Hospitalisation',
      exclusions: 'Cosmetic',
      terms_conditions: 'Terms',
      policy_document_url: 'https://doc.example.com/p.pdf',
      network_hospital_url: 'https://net.example.com',
      daycare_url: 'https://daycare.example.com',
      cd_balance: 1234567.89,
      cd_held: 0,
      cd_available_balance: 1234567.89,
      net_premium: 100000,
      gross_premium: 118000,
    });
    expect(policy.sum_insured).to.deep.equal(['300000', '500000']);
  });

  it('falls back to the insurer’s hospital and daycare lists when the policy has none', async () => {
    const c = await makeClient();
    const p = await makePolicy(c.clientId);
    await sql('update policies set network_hospital_url = null, daycare_url = null where id = ?', [p.id]);
    await sql(
      "update insurers set network_hospital_url = 'https://ins.example.com/net', daycare_url = null where id = ?",
      [p.insurerId],
    );
    const res = await http.get(`/v1/policy/${p.id}`, { token: c.token() });
    expect(res.body.payload.policy).to.include({
      network_hospital_url: 'https://ins.example.com/net',
      daycare_url: '',
    });
  });

  it('answers an unknown id, a malformed id and another client’s policy alike: 404 Policy Not Found', async () => {
    const a = await makeClient();
    const b = await makeClient();
    const theirs = await makePolicy(b.clientId);
    for (const id of [theirs.id, 'pol_doesnotexist', 'nonsense', 'x'.repeat(300)]) {
      const res = await http.get(`/v1/policy/${id}`, { token: a.token() });
      expect(res.status, id).to.equal(404);
      expect(res.body).to.deep.equal({
        type: 'NOT_FOUND',
        title: 'Policy Not Found',
        detail: '',
        instance: `/v1/policy/${id}`,
      });
    }
    expect((await http.get(`/v1/policy/${theirs.id}`, { token: b.token() })).status).to.equal(200);
  });

  it('admits policy.get and policy.all only', async () => {
    const c = await makeClient();
    const p = await makePolicy(c.clientId);
    expect((await http.get(`/v1/policy/${p.id}`, { token: c.token(['policy.all']) })).status).to.equal(200);
    for (const scopes of [['policy.list'], ['policy.members.list']] as const) {
      const res = await http.get(`/v1/policy/${p.id}`, { token: c.token(scopes) });
      expect(res.status).to.equal(403);
      expect(res.body.title).to.equal('Insufficient Scope');
    }
  });
});
