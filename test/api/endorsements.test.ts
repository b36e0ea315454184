import { expect } from 'chai';
import { createTemporalClient } from '../../infra/temporal-client.js';
import { makeClient, makeEmployee, makeMember, makePolicy, sql } from '../support/factories.js';
import { client as http } from '../support/http.js';
import { stack } from '../support/stack.js';
import {
  createEndorsement,
  makeWorld,
  waitForStatus,
  workflowHandle,
  type CreateBody,
  type World,
} from '../workflows/endorsement-support.js';
import { checkCdLedgersAfterEachTest } from '../support/cd-ledger-check.js';

const PATH = '/v1/policy/endorsements';

const post = (world: World, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  world.api.post(PATH, { token: world.token, body, headers });

const addition = (world: World, o: Partial<CreateBody> = {}): Record<string, unknown> => ({
  employee_id: world.employee.id,
  policy_id: world.policy.id,
  type: 'ADDITION',
  coverage_start_date: '2026-04-01',
  coverage_end_date: '2027-03-31',
  ...o,
});

const countEndorsements = async (employeeId: string): Promise<number> =>
  Number((await sql('select count(*)::int as n from endorsements where employee_id = ?', [employeeId]))[0].n);

describe('endorsements API', () => {
  checkCdLedgersAfterEachTest();
  describe('POST /v1/policy/endorsements', () => {
    it('accepts an addition, starts its workflow and answers the id', async () => {
      const world = await makeWorld();
      const res = await post(world, addition(world, { sum_insured: 500000 }));
      expect(res.status).to.equal(200);
      expect(res.body.payload).to.include({ message: 'Endorsement created successfully', success: true });
      const id = res.body.payload.endorsement_id;
      expect(id).to.match(/^end_[a-z0-9]+$/);
      const [row] = await sql(
        'select workflow_started_at, sum_insured::text as si from endorsements where id = ?',
        [id],
      );
      expect(row.workflow_started_at).to.not.equal(null);
      expect(row.si).to.equal('500000.00');
      const described = await workflowHandle(id).describe();
      expect(described.status.name).to.equal('RUNNING');
    });

    it('accepts the prefixed type spelling', async () => {
      const world = await makeWorld();
      const res = await post(world, addition(world, { type: 'ENDORSEMENT_TYPE_ADDITION' }));
      expect(res.status).to.equal(200);
      const [row] = await sql('select type from endorsements where id = ?', [
        res.body.payload.endorsement_id,
      ]);
      expect(row).to.deep.equal({ type: 'ENDORSEMENT_TYPE_ADDITION' });
    });

    it('answers 404 Employee Not Found for an unknown or another client’s employee', async () => {
      const world = await makeWorld();
      const other = await makeClient();
      const stranger = await makeEmployee(other.clientId);
      for (const employee_id of ['emp_unknown', stranger.id]) {
        const res = await post(world, addition(world, { employee_id }));
        expect(res.status).to.equal(404);
        expect(res.body).to.deep.equal({
          type: 'NOT_FOUND',
          title: 'Employee Not Found',
          detail: '',
          instance: PATH,
        });
      }
    });

    it('answers 404 Policy Not Found for an unknown, inactive or foreign policy, or when routing finds none', async () => {
      const world = await makeWorld();
      const inactive = await makePolicy(world.client.clientId, { status: 'POLICY_STATUS_INACTIVE' });
      const foreign = await makePolicy((await makeClient()).clientId);
      for (const policy_id of ['pol_unknown', inactive.id, foreign.id]) {
        const res = await post(world, addition(world, { policy_id }));
        expect(res.status).to.equal(404);
        expect(res.body.title).to.equal('Policy Not Found');
      }
      const unroutable = await post(
        world,
        addition(world, { policy_id: undefined, coverage_start_date: '2028-01-01' }),
      );
      expect(unroutable.status).to.equal(404);
      expect(unroutable.body.title).to.equal('Policy Not Found');
    });

    it('answers 400 INVALID_ENDORSEMENT_TYPE listing ADDITION, DELETION, MODIFICATION and REINSTATEMENT', async () => {
      const world = await makeWorld();
      for (const type of ['UPGRADE', 'addition', 42, undefined]) {
        const res = await post(world, addition(world, { type: type as string }));
        expect(res.status).to.equal(400);
        expect(res.body).to.include({ type: 'INVALID_ENDORSEMENT_TYPE', title: 'Invalid endorsement type' });
        expect(res.body.detail).to.equal(
          'type: must be one of ADDITION, DELETION, MODIFICATION, REINSTATEMENT',
        );
      }
    });

    it('answers 400 MISSING_ADDITION_DETAILS for an addition without its dates, VALIDATION_ERROR for a deletion', async () => {
      const world = await makeWorld();
      const res = await post(world, addition(world, { coverage_end_date: undefined }));
      expect(res.status).to.equal(400);
      expect(res.body).to.include({ type: 'MISSING_ADDITION_DETAILS', title: 'Missing addition details' });
      expect(res.body.detail).to.contain('coverage_end_date');

      const deletion = await post(
        world,
        addition(world, { type: 'DELETION', coverage_start_date: undefined }),
      );
      expect(deletion.status).to.equal(400);
      expect(deletion.body.type).to.equal('VALIDATION_ERROR');
      expect(deletion.body.detail).to.contain('coverage_start_date');
    });

    it('answers 400 VALIDATION_ERROR naming the field for dates, period, slab and unknown fields', async () => {
      const world = await makeWorld();
      const cases: [Record<string, unknown>, string][] = [
        [addition(world, { coverage_start_date: '2026-02-30' }), 'coverage_start_date'],
        [
          addition(world, { coverage_start_date: '2026-10-01', coverage_end_date: '2026-10-01' }),
          'coverage_end_date',
        ],
        [addition(world, { coverage_end_date: '2027-04-30' }), 'policy period'],
        [addition(world, { coverage_start_date: '2026-03-01' }), 'policy period'],
        [addition(world, { sum_insured: 400000 }), 'sum_insured'],
        [addition(world, { sum_insured: 'lots' }), 'sum_insured'],
        [{ ...addition(world), client_id: 'x' }, 'client_id'],
        [{ ...addition(world), employee_id: undefined }, 'employee_id'],
      ];
      for (const [body, field] of cases) {
        const res = await post(world, body);
        expect(res.status, field).to.equal(400);
        expect(res.body.type, field).to.equal('VALIDATION_ERROR');
        expect(res.body.detail, field).to.contain(field);
      }
      expect(await countEndorsements(world.employee.id)).to.equal(0);
    });

    it('asks for policy_id when a deletion could go to several policies', async () => {
      const world = await makeWorld();
      const second = await makePolicy(world.client.clientId);
      await makeMember(world.client.clientId, world.policy.id, world.employee);
      await makeMember(world.client.clientId, second.id, world.employee);
      const res = await post(world, addition(world, { type: 'DELETION', policy_id: undefined }));
      expect(res.status).to.equal(400);
      expect(res.body.detail).to.match(/^policy_id: /);
    });

    it('answers 409 Endorsement In Progress with the open endorsement id', async () => {
      const world = await makeWorld();
      const first = await createEndorsement(world);
      const res = await post(world, addition(world));
      expect(res.status).to.equal(409);
      expect(res.body).to.include({ type: 'CONFLICT', title: 'Endorsement In Progress' });
      expect(res.body.detail).to.contain(first);
    });

    it('answers 409 for an addition of a covered employee and a deletion of an uncovered one', async () => {
      const world = await makeWorld();
      const covered = await makeEmployee(world.client.clientId);
      await makeMember(world.client.clientId, world.policy.id, covered);
      const add = await post(world, addition(world, { employee_id: covered.id }));
      expect(add.status).to.equal(409);
      expect(add.body).to.include({ type: 'CONFLICT', title: 'Employee Already Covered' });
      const del = await post(world, addition(world, { type: 'DELETION' }));
      expect(del.status).to.equal(409);
      expect(del.body).to.include({ type: 'CONFLICT', title: 'Employee Not Covered' });
      const mod = await post(world, addition(world, { type: 'MODIFICATION', sum_insured: 500000 }));
      expect(mod.status).to.equal(409);
    });

    it('lets exactly one of many concurrent identical creates through; the others get 409', async () => {
      const world = await makeWorld();
      const results = await Promise.all(Array.from({ length: 10 }, () => post(world, addition(world))));
      const ok = results.filter((r) => r.status === 200);
      expect(ok).to.have.length(1);
      const id = ok[0]!.body.payload.endorsement_id;
      for (const r of results.filter((x) => x.status !== 200)) {
        expect(r.status).to.equal(409);
        expect(r.body.detail).to.contain(id);
      }
      expect(await countEndorsements(world.employee.id)).to.equal(1);
    });

    it('needs policy.all (D2)', async () => {
      const world = await makeWorld();
      const res = await world.api.post(PATH, {
        token: world.client.token(['policy.get']),
        body: addition(world),
      });
      expect(res.status).to.equal(403);
      expect(res.body).to.include({ type: 'FORBIDDEN', title: 'Insufficient Scope' });
      expect((await world.api.post(PATH, { body: addition(world) })).status).to.equal(401);
    });

    it('answers 503 and keeps nothing when Temporal is unreachable', async function () {
      this.timeout(60_000);
      const world = await makeWorld();
      const config = { ...stack().config, TEMPORAL_ADDRESS: '127.0.0.1:1' };
      const down = http((await stack().startApi({ temporal: createTemporalClient(config) })).url);
      const body = addition(world);
      const res = await down.post(PATH, {
        token: world.token,
        body,
        headers: { 'Idempotency-Key': 'down-1' },
      });
      expect(res.status).to.equal(503);
      expect(res.body.type).to.equal('SERVICE_UNAVAILABLE');
      expect(res.headers.get('retry-after')).to.not.equal(null);
      expect(await countEndorsements(world.employee.id)).to.equal(0);

      // Once Temporal is back, the same request (and key) goes through.
      const retry = await post(world, body, { 'Idempotency-Key': 'down-1' });
      expect(retry.status).to.equal(200);
      expect(await countEndorsements(world.employee.id)).to.equal(1);
    });
  });

  describe('Idempotency-Key', () => {
    it('answers the first response again for the same key and body, starting nothing', async () => {
      const world = await makeWorld();
      const headers = { 'Idempotency-Key': 'create-1' };
      const first = await post(world, addition(world), headers);
      expect(first.status).to.equal(200);
      // Same body with keys in another order.
      const { coverage_end_date, ...rest } = addition(world);
      const second = await post(world, { coverage_end_date, ...rest }, headers);
      expect(second.status).to.equal(200);
      expect(second.body).to.deep.equal(first.body);
      expect(second.headers.get('idempotent-replayed')).to.equal('true');
      expect(await countEndorsements(world.employee.id)).to.equal(1);
    });

    it('answers 422 IDEMPOTENCY_KEY_REUSED for the same key with another body', async () => {
      const world = await makeWorld();
      const headers = { 'Idempotency-Key': 'create-2' };
      expect((await post(world, addition(world), headers)).status).to.equal(200);
      const other = await post(world, addition(world, { coverage_start_date: '2026-05-01' }), headers);
      expect(other.status).to.equal(422);
      expect(other.body.type).to.equal('IDEMPOTENCY_KEY_REUSED');
      expect(await countEndorsements(world.employee.id)).to.equal(1);
    });

    it('makes one endorsement of 20 concurrent requests with one key', async () => {
      const world = await makeWorld();
      const headers = { 'Idempotency-Key': 'burst' };
      const results = await Promise.all(
        Array.from({ length: 20 }, () => post(world, addition(world), headers)),
      );
      expect(results.map((r) => r.status)).to.deep.equal(Array(20).fill(200));
      const ids = new Set(results.map((r) => r.body.payload.endorsement_id));
      expect(ids.size).to.equal(1);
      expect(await countEndorsements(world.employee.id)).to.equal(1);
    });

    it('scopes a key to its client', async () => {
      const a = await makeWorld();
      const b = await makeWorld();
      const headers = { 'Idempotency-Key': 'shared-key' };
      const ra = await post(a, addition(a), headers);
      const rb = await post(b, addition(b), headers);
      expect(ra.status).to.equal(200);
      expect(rb.status).to.equal(200);
      expect(rb.body.payload.endorsement_id).to.not.equal(ra.body.payload.endorsement_id);
    });

    it('refuses a malformed key', async () => {
      const world = await makeWorld();
      const res = await post(world, addition(world), { 'Idempotency-Key': 'x'.repeat(300) });
      expect(res.status).to.equal(400);
      expect(res.body.detail).to.contain('Idempotency-Key');
    });
  });

  describe('GET /v1/policy/endorsements/:endorsement_id', () => {
    it('returns every field of spec 2.5, rejection_reason null unless REJECTED', async () => {
      const world = await makeWorld();
      const id = await createEndorsement(world, {
        coverage_start_date: '2026-10-01',
        coverage_end_date: '2027-03-31',
      });
      await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
      // policy.get is enough to read.
      const res = await world.api.get(`${PATH}/${id}`, { token: world.client.token(['policy.get']) });
      expect(res.status).to.equal(200);
      expect(res.body.payload).to.deep.equal({
        endorsement: {
          id,
          client_id: world.client.clientId,
          policy_id: world.policy.id,
          employee_id: world.employee.id,
          dependent_id: null,
          type: 'ENDORSEMENT_TYPE_ADDITION',
          status: 'ENDORSEMENT_STATUS_SENT_TO_INSURER',
          coverage_start_date: '2026-10-01',
          coverage_end_date: '2027-03-31',
          premium_impact: 1820,
          sum_insured: 300000,
          rejection_reason: null,
          awaiting_funds_reason: null,
        },
        message: 'Endorsement fetched successfully',
        success: true,
      });
    });

    it('answers 404 Endorsement Not Found for unknown ids and other clients’ endorsements', async () => {
      const world = await makeWorld();
      const other = await makeWorld({ api: world.api });
      const foreign = await createEndorsement(other);
      for (const id of ['end_unknown', foreign, 'not-an-id']) {
        const res = await world.api.get(`${PATH}/${id}`, { token: world.token });
        expect(res.status).to.equal(404);
        expect(res.body).to.include({ type: 'NOT_FOUND', title: 'Endorsement Not Found' });
        const cancel = await world.api.post(`${PATH}/${id}/cancel`, { token: world.token });
        expect(cancel.status).to.equal(404);
      }
      expect(
        (await world.api.get(`${PATH}/${foreign}`, { token: world.client.token(['employee.all']) })).status,
      ).to.equal(403);
    });
  });
});
