import { expect } from 'chai';
import { createTemporalClient } from '../../infra/temporal-client.js';
import { ClientId, EmployeeId, GrantStatus } from '../../workflows/search-attributes.js';
import { sql } from '../support/factories.js';
import { client as http } from '../support/http.js';
import { stack } from '../support/stack.js';
import { waitFor } from '../workflows/endorsement-support.js';
import {
  countRows,
  grant,
  grantAudit,
  grantHandle,
  grantWorld,
  postGrant,
} from '../workflows/grant-support.js';

const expectValidation = (res: { status: number; body: any }, field: string) => {
  expect(res.status).to.equal(400);
  expect(res.body).to.include({ type: 'VALIDATION_ERROR', instance: '/v1/policy/grant' });
  expect(res.body.detail).to.contain(`${field}:`);
};

describe('grants API', () => {
  describe('POST /v1/policy/grant', () => {
    it('accepts a grant, stores it PENDING and starts its workflow', async () => {
      const w = await grantWorld();
      const res = await postGrant(w, {});
      expect(res.status).to.equal(200);
      expect(res.body.payload).to.include({ message: 'Grant request accepted', success: true });
      const id = res.body.payload.request_id as string;
      expect(id).to.match(/^grt_[a-z0-9]+$/);

      const [row] = await sql(
        `select client_id, employee_id, policy_id, start_date::text as start_date, end_date::text as end_date,
                workflow_started_at from grants where id = ?`,
        [id],
      );
      expect(row).to.include({
        client_id: w.clientId,
        employee_id: w.employee.id,
        policy_id: null,
        start_date: '2026-04-01',
        end_date: '2027-03-31',
      });
      expect(row.workflow_started_at).to.not.equal(null);
      const described = await grantHandle(id).describe();
      expect(described.type).to.equal('grantWorkflow');
      expect(described.typedSearchAttributes.get(ClientId)).to.equal(w.clientId);
      expect(described.typedSearchAttributes.get(EmployeeId)).to.equal(w.employee.id);
      expect(described.typedSearchAttributes.get(GrantStatus)).to.match(/^GRANT_STATUS_/);
      expect((await grantAudit(id))[0]).to.equal('create');
      const [audit] = await sql(
        `select actor_token_id, changed_fields from audit_events where entity = 'grant' and entity_id = ? and action = 'create'`,
        [id],
      );
      expect(audit.actor_token_id).to.be.a('string');
    });

    it('answers a missing field `field: is required` and a null body `body: must be an object`', async () => {
      const w = await grantWorld();
      for (const field of ['employee_id', 'start_date', 'end_date'] as const) {
        const res = await postGrant(w, { [field]: undefined });
        expectValidation(res, field);
        expect(res.body.detail).to.equal(`${field}: is required`);
      }
      const nullBody = await w.api.post('/v1/policy/grant', {
        token: w.token,
        rawBody: 'null',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'null-body-1' },
      });
      expectValidation(nullBody, 'body');
      expect(nullBody.body.detail).to.equal('body: must be an object');
      expect(await countRows('grants', w.employee.id)).to.equal(0);
    });

    it('answers 400 VALIDATION_ERROR naming start_date when it is not before end_date', async () => {
      const w = await grantWorld();
      const same = await postGrant(w, { start_date: '2026-06-01', end_date: '2026-06-01' });
      expectValidation(same, 'start_date');
      expect(same.body.detail).to.contain('must be before end_date');
      expectValidation(
        await postGrant(w, { start_date: '2026-07-01', end_date: '2026-06-01' }),
        'start_date',
      );
      expect(await countRows('grants', w.employee.id)).to.equal(0);
    });

    it('answers 400 naming a malformed or impossible date, a missing field or an unknown one', async () => {
      const w = await grantWorld();
      expectValidation(await postGrant(w, { end_date: '2027-02-30' }), 'end_date');
      expectValidation(await postGrant(w, { start_date: '01/04/2026' }), 'start_date');
      expectValidation(await postGrant(w, { start_date: 20260401 }), 'start_date');
      expectValidation(await postGrant(w, { employee_id: undefined }), 'employee_id');
      expectValidation(await postGrant(w, { coverage_type: 'x' }), 'coverage_type');
      expect(await countRows('grants', w.employee.id)).to.equal(0);
    });

    it('answers 404 Employee Not Found for an unknown employee or another client’s', async () => {
      const w = await grantWorld();
      const other = await grantWorld();
      for (const employeeId of ['emp_doesnotexist', other.employee.id]) {
        const res = await postGrant(w, { employee_id: employeeId });
        expect(res.status).to.equal(404);
        expect(res.body).to.include({ type: 'NOT_FOUND', title: 'Employee Not Found' });
      }
      expect(await countRows('grants', other.employee.id)).to.equal(0);
    });

    it('answers 404 Policy Not Found for an inactive policy, another client’s, or one outside the period', async () => {
      const w = await grantWorld({
        active: {},
        inactive: { status: 'POLICY_STATUS_INACTIVE' },
        suspended: { status: 'POLICY_STATUS_SUSPENDED' },
        later: { startDate: '2028-01-01', endDate: '2028-12-31' },
      });
      const other = await grantWorld();
      for (const policyId of [
        w.policies.inactive!.id,
        w.policies.suspended!.id,
        other.policies.a!.id,
        'pol_doesnotexist',
        w.policies.later!.id,
      ]) {
        const res = await postGrant(w, { policy_id: policyId });
        expect(res.status, policyId).to.equal(404);
        expect(res.body).to.include({ type: 'NOT_FOUND', title: 'Policy Not Found' });
      }
      expect(await countRows('grants', w.employee.id)).to.equal(0);
    });

    it('answers 404 Policy Not Found when no active policy overlaps the period', async () => {
      const w = await grantWorld({
        current: { startDate: '2026-04-01', endDate: '2027-03-31' },
        inactive: { status: 'POLICY_STATUS_INACTIVE', startDate: '2027-04-01', endDate: '2028-03-31' },
      });
      // Touching the policy's last day only is not an overlap (a coverage period needs start < end).
      for (const [start, end] of [
        ['2027-04-01', '2028-03-31'],
        ['2027-03-31', '2027-06-30'],
      ]) {
        const res = await postGrant(w, { start_date: start, end_date: end });
        expect(res.status).to.equal(404);
        expect(res.body).to.include({ type: 'NOT_FOUND', title: 'Policy Not Found' });
        expect(res.body.detail).to.contain('no active policy overlaps');
      }
      const none = await grantWorld({});
      const res = await postGrant(none, {});
      expect(res.status).to.equal(404);
      expect(res.body.title).to.equal('Policy Not Found');
      expect(await countRows('grants', w.employee.id)).to.equal(0);
    });

    it('needs policy.all (D2)', async () => {
      const w = await grantWorld();
      const body = { employee_id: w.employee.id, start_date: '2026-04-01', end_date: '2027-03-31' };
      const res = await w.api.post('/v1/policy/grant', { token: w.client.token(['policy.get']), body });
      expect(res.status).to.equal(403);
      expect(res.body).to.include({ type: 'FORBIDDEN', title: 'Insufficient Scope' });
      expect((await w.api.post('/v1/policy/grant', { body })).status).to.equal(401);
      expect(await countRows('grants', w.employee.id)).to.equal(0);
    });

    it('answers 503 and keeps nothing when Temporal is unreachable', async function () {
      this.timeout(60_000);
      const w = await grantWorld();
      const config = { ...stack().config, TEMPORAL_ADDRESS: '127.0.0.1:1' };
      const down = http((await stack().startApi({ temporal: createTemporalClient(config) })).url);
      const body = { employee_id: w.employee.id, start_date: '2026-04-01', end_date: '2027-03-31' };
      const res = await down.post('/v1/policy/grant', { token: w.token, body });
      expect(res.status).to.equal(503);
      expect(res.body.type).to.equal('SERVICE_UNAVAILABLE');
      expect(await countRows('grants', w.employee.id)).to.equal(0);
    });
  });

  describe('Idempotency-Key', () => {
    it('answers the first response again for the same key and body, starting nothing', async () => {
      const w = await grantWorld();
      const headers = { 'Idempotency-Key': 'grant-1' };
      const first = await postGrant(w, {}, headers);
      expect(first.status).to.equal(200);
      const second = await postGrant(w, {}, headers);
      expect(second.status).to.equal(200);
      expect(second.body).to.deep.equal(first.body);
      expect(second.headers.get('idempotent-replayed')).to.equal('true');
      expect(await countRows('grants', w.employee.id)).to.equal(1);
      // Visibility is eventually consistent: wait until the first start is listed, then count.
      const workflows = await waitFor(
        () => grantWorkflowsOf(w.employee.id),
        (ids) => ids.length > 0,
        'the grant workflow to be listed',
      );
      expect(workflows).to.deep.equal([`grant-${first.body.payload.request_id}`]);

      const other = await postGrant(w, { start_date: '2026-05-01' }, headers);
      expect(other.status).to.equal(422);
      expect(other.body.type).to.equal('IDEMPOTENCY_KEY_REUSED');
      expect(await countRows('grants', w.employee.id)).to.equal(1);
    });
  });

  describe('GET /v1/policy/grant/:request_id', () => {
    it('returns the D9 shape with policy.get', async () => {
      const w = await grantWorld();
      const id = await grant(w, { policy_id: w.policies.a!.id, start_date: '2026-05-01' });
      const res = await w.api.get(`/v1/policy/grant/${id}`, { token: w.client.token(['policy.get']) });
      expect(res.status).to.equal(200);
      expect(res.body.payload).to.include({ message: 'Grant fetched successfully', success: true });
      const g = res.body.payload.grant;
      expect(Object.keys(g)).to.have.members([
        'request_id',
        'employee_id',
        'start_date',
        'end_date',
        'status',
        'endorsements',
      ]);
      expect(g).to.include({
        request_id: id,
        employee_id: w.employee.id,
        start_date: '2026-05-01',
        end_date: '2027-03-31',
      });
      expect(g.status).to.match(/^GRANT_STATUS_(PENDING|IN_PROGRESS)$/);
      expect(g.endorsements).to.be.an('array');
    });

    it('answers 404 Grant Not Found for another client’s grant, an unknown id and a malformed one', async () => {
      const w = await grantWorld();
      const other = await grantWorld();
      const theirs = await grant(other);
      for (const id of [theirs, 'grt_doesnotexist', 'nonsense']) {
        const res = await w.api.get(`/v1/policy/grant/${id}`, { token: w.token });
        expect(res.status, id).to.equal(404);
        expect(res.body).to.include({ type: 'NOT_FOUND', title: 'Grant Not Found' });
      }
    });
  });
});

async function grantWorkflowsOf(employeeId: string): Promise<string[]> {
  const ids: string[] = [];
  const query = `WorkflowType = 'grantWorkflow' AND EmployeeId = '${employeeId}'`;
  for await (const wf of stack().temporal.workflow.list({ query })) ids.push(wf.workflowId);
  return ids;
}
