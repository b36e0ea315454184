import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { makeClient, makeEmployee, makeMember, type TestClient } from '../support/factories.js';
import { client, type HttpClient } from '../support/http.js';
import { getPage, walkBothWays, withQuery } from '../support/paging.js';
import { stack } from '../support/stack.js';
import { createEndorsement, decide, makeWorld, waitForStatus } from '../workflows/endorsement-support.js';
import { grant, grantWorld, waitForGrant } from '../workflows/grant-support.js';

const tag = () => randomBytes(4).toString('hex');
const jti = (token: string) => (jwt.decode(token) as { jti: string }).jti;

describe('GET /v1/audit', function () {
  this.timeout(30_000);
  let http: HttpClient;
  let a: TestClient;
  let b: TestClient;
  let employeeId: string;
  let tokenA: string;
  const person = {
    name: `Audit Person ${tag()}`,
    email: `audit.${tag()}@example.com`,
    phone: '+919811112222',
  };

  before(async () => {
    http = client((await stack().startApi()).url);
    [a, b] = await Promise.all([makeClient(), makeClient()]);
    tokenA = a.token(['employee.all']);
    const created = await http.post('/v1/client/employees', {
      token: tokenA,
      body: {
        employee_id: `E-${tag()}`,
        name: person.name,
        email: person.email,
        phone_number: person.phone,
        date_of_birth: '1990-01-02',
        gender: 'GENDER_FEMALE',
        status: 'EMPLOYEE_STATUS_ACTIVE',
      },
    });
    expect(created.status, created.text).to.equal(200);
    employeeId = created.body.payload.employee_id;
    const updated = await http.put(`/v1/client/employees/${employeeId}`, {
      token: tokenA,
      body: { designation: 'Lead', personal_email: `p.${tag()}@example.com` },
    });
    expect(updated.status, updated.text).to.equal(200);
  });

  const trail = (token: string, query: Record<string, string | undefined>) =>
    http.get(withQuery('/v1/audit', query), { token });

  it("answers an employee's trail: who (client, token), what (action, field names), when; no values", async () => {
    const res = await trail(a.token(['policy.all']), { entity: 'employee', entity_id: employeeId });
    expect(res.status, res.text).to.equal(200);
    const page = res.body.payload;
    expect(page).to.include({ total_count: 2, has_previous: false, has_next: false, success: true });
    expect(page.message).to.equal('Audit events fetched successfully');
    const [created, updated] = page.audit_events;
    expect(created).to.deep.include({
      entity: 'employee',
      entity_id: employeeId,
      action: 'create',
      actor: { client_id: a.clientId, token_id: jti(tokenA) },
    });
    expect(created.changed_fields).to.include.members(['name', 'email', 'phone_number', 'date_of_birth']);
    expect(updated).to.deep.include({
      action: 'update',
      actor: { client_id: a.clientId, token_id: jti(tokenA) },
    });
    expect(updated.changed_fields).to.have.members(['designation', 'personal_email']);
    for (const row of page.audit_events) {
      expect(row).to.have.all.keys('id', 'entity', 'entity_id', 'action', 'changed_fields', 'actor', 'at');
      expect(row.id).to.match(/^aud_[0-9a-f]{32}$/);
      expect(new Date(row.at).toISOString()).to.equal(row.at);
    }
    for (const value of [person.name, person.email, person.phone, '1990-01-02', 'Lead']) {
      expect(res.text).to.not.contain(value);
    }
  });

  it('pages one kind of record for the client with keyset cursors both ways (D5)', async () => {
    const c = await makeClient();
    for (let i = 0; i < 12; i++) await makeEmployee(c.clientId);
    const token = c.token(['employee.all']);
    const { pages, total } = await walkBothWays(http, token, '/v1/audit', 'audit_events', {
      entity: 'employee',
      limit: '5',
    });
    expect(total).to.equal(12);
    expect(pages.map((p) => p.length)).to.deep.equal([5, 5, 2]);
    expect(new Set(pages.flat()).size).to.equal(12);
    const first = await getPage(http, token, '/v1/audit', 'audit_events', { entity: 'EMPLOYEE', limit: '3' });
    expect(first.ids).to.deep.equal(pages[0]!.slice(0, 3));
  });

  it('filters by entity: an endorsement trail holds its transitions, the employee trail does not', async () => {
    const world = await makeWorld();
    const id = await createEndorsement(world);
    await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
    await decide(id, { decision: 'APPROVED' });
    await waitForStatus(id, 'ENDORSEMENT_STATUS_APPROVED');
    const token = world.client.token(['policy.all']);
    const res = await trail(token, { entity: 'endorsement', entity_id: id });
    expect(res.status, res.text).to.equal(200);
    const rows = res.body.payload.audit_events;
    expect(rows.map((r: any) => r.action)).to.deep.equal(['create', 'sent_to_insurer', 'approve']);
    expect(rows[0].actor.token_id).to.equal(jti(world.token));
    expect(rows[1].actor).to.deep.equal({ client_id: world.client.clientId, token_id: null });
    expect(rows[2].changed_fields).to.have.members(['status', 'insurer_member_id', 'uhid']);
    const employees = await trail(token, { entity: 'employee' });
    expect(employees.body.payload.audit_events.map((r: any) => r.entity_id)).to.deep.equal([
      world.employee.id,
    ]);
    const grants = await trail(token, { entity: 'grant' });
    expect(grants.body.payload).to.include({ total_count: 0, start_cursor: '', end_cursor: '' });
  });

  it("holds a grant's transitions", async () => {
    const w = await grantWorld({ covering: {} });
    const covering = w.policies.covering!;
    await makeMember(w.clientId, covering.id, w.employee);
    const id = await grant(w, { policy_id: covering.id });
    await waitForGrant(w, id, (g) => g.status === 'GRANT_STATUS_COMPLETED', 'completed');
    const res = await trail(w.client.token(['policy.all']), { entity: 'grant', entity_id: id });
    expect(res.status, res.text).to.equal(200);
    const rows = res.body.payload.audit_events;
    expect(rows.map((r: any) => r.action)).to.deep.equal(['create', 'completed']);
    expect(rows[1].changed_fields).to.deep.equal(['status']);
    expect(rows[0].actor.token_id).to.equal(jti(w.token));
    expect(rows[1].actor.token_id).to.equal(null);
  });

  it("never shows another client's entries, nor accepts its cursors", async () => {
    const tokenB = b.token(['policy.all']);
    const res = await trail(tokenB, { entity: 'employee', entity_id: employeeId });
    expect(res.status).to.equal(200);
    expect(res.body.payload).to.include({ total_count: 0, has_next: false });
    expect(res.body.payload.audit_events).to.deep.equal([]);
    const page = await trail(a.token(['policy.all']), { entity: 'employee', limit: '1' });
    const cursor = page.body.payload.end_cursor as string;
    const foreign = await trail(tokenB, { entity: 'employee', start_cursor: cursor });
    expect(foreign.status).to.equal(400);
    expect(foreign.body.detail).to.equal('start_cursor: is not a valid cursor for this list');
    // A cursor belongs to one list: another entity filter of the same client refuses it too.
    const otherList = await trail(a.token(['policy.all']), { entity: 'endorsement', start_cursor: cursor });
    expect(otherList.status).to.equal(400);
  });

  it('needs policy.all or employee.all, and a valid entity', async () => {
    const forbidden = await trail(a.token(['employee.get', 'policy.get', 'policy.list']), {
      entity: 'employee',
    });
    expect(forbidden.status).to.equal(403);
    expect(forbidden.body).to.include({ type: 'FORBIDDEN', title: 'Insufficient Scope' });
    expect((await trail(a.token(['employee.all']), { entity: 'employee' })).status).to.equal(200);
    const cases: [Record<string, string>, string][] = [
      [{}, 'entity: is required'],
      [{ entity: 'policy' }, 'entity: must be one of employee, endorsement, grant, policy_member'],
      [{ entity: 'employee', entity_id: '' }, 'entity_id: must not be empty'],
      [{ entity: 'employee', limit: '0' }, 'limit: must be an integer from 1 to 100'],
      [
        { entity: 'employee', start_cursor: 'abc', last_cursor: 'def' },
        'last_cursor: cannot be combined with start_cursor',
      ],
    ];
    for (const [query, detail] of cases) {
      const res = await trail(tokenA, query);
      expect(res.status, JSON.stringify(query)).to.equal(400);
      expect(res.body).to.include({ type: 'VALIDATION_ERROR', detail });
    }
  });
});
