import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import YAML from 'yaml';
import { loadReferenceData } from '../../admin/load.js';
import { loadFileSchema } from '../../admin/load-schema.js';
import { makeClient } from '../support/factories.js';
import { startInsurerServer, type InsurerServer } from '../support/insurer-server.js';
import { stack } from '../support/stack.js';
import {
  createEndorsement,
  decide,
  endorsementApi,
  waitFor,
  waitForStatus,
  workflowHandle,
  workflowState,
} from './endorsement-support.js';
import { checkCdLedgersAfterEachTest } from '../support/cd-ledger-check.js';

const SECRET_ENV = `TEST_API_INSURER_SECRET_${randomBytes(4).toString('hex').toUpperCase()}`;
const SECRET = `whsec_${randomBytes(32).toString('base64url')}`;

/** A load file (D12) with one insurer on the `api` adapter pointing at the insurer's loopback server. */
const loadFile = (baseUrl: string) => `
insurers:
  - code: APIX
    name: API Insurer
    logo_url: https://assets.example.com/apix.png
    adapter: api
    adapter_settings:
      base_url: ${baseUrl}
      signing_secret_env: ${SECRET_ENV}
      timeout_ms: 5000
tpas:
  - { code: MEDI, name: Medi Assist }
products:
  - { code: APIX-GH, name: APIX Group Health, category: Group Health, insurer: APIX }
policies:
  - policy_number: APIX/GH/2026/0001
    insurer: APIX
    product: APIX-GH
    tpa: MEDI
    net_premium: 100000
    gross_premium: 118000
    coverage_type: COVERAGE_TYPE_ESC
    type: POLICY_TYPE_FAMILY_FLOATER
    status: POLICY_STATUS_ACTIVE
    start_date: '2026-04-01'
    end_date: '2027-03-31'
    slabs:
      - { sum_insured: 300000, annual_premium: 3650 }
    cd_balance: 500000
employees:
  - employee_id: APIX-001
    name: Asha Verma
    email: asha.verma@employer.example.com
    phone_number: '+919800000100'
    date_of_birth: '1988-05-17'
    gender: GENDER_FEMALE
    date_of_joining: '2020-01-06'
    status: EMPLOYEE_STATUS_ACTIVE
    dependents:
      - { name: Ravi Verma, relationship: SPOUSE, date_of_birth: '1987-01-09', gender: GENDER_MALE }
      - { name: Ira Verma, relationship: CHILD, date_of_birth: '2019-11-02', gender: GENDER_OTHER }
      - { name: Meena Verma, relationship: PARENT, date_of_birth: '1960-03-30', gender: GENDER_FEMALE }
`;

describe('an api insurer end to end', function () {
  checkCdLedgersAfterEachTest();
  this.timeout(60_000);
  let insurer: InsurerServer;

  before(async () => {
    process.env[SECRET_ENV] = SECRET;
    insurer = await startInsurerServer(SECRET);
  });
  after(async () => {
    delete process.env[SECRET_ENV];
    await insurer?.close();
  });

  /** A new client whose reference data comes from the load file, its insurer at `baseUrl`. */
  async function loadedWorld(baseUrl: string) {
    const client = await makeClient();
    const file = loadFileSchema.parse(YAML.parse(loadFile(baseUrl)));
    const loaded = await loadReferenceData(stack().orm.em.fork(), client.clientId, file);
    return {
      client,
      token: client.token(),
      api: await endorsementApi(),
      policy: { id: loaded.policies['APIX/GH/2026/0001']!, policyNumber: 'APIX/GH/2026/0001' },
      employee: { id: loaded.employees['APIX-001']!, name: 'Asha Verma', employeeCode: 'APIX-001' },
    };
  }

  it('reaches the insurer signed, with the covered members, and is approved by its decision', async () => {
    const world = await loadedWorld(insurer.url);
    const id = await createEndorsement(world, { sum_insured: 300000 });
    await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
    const [call] = await waitFor(
      async () => [...insurer.calls],
      (calls) => calls.length > 0,
      'the insurer to receive the submission',
    );
    expect(call).to.include({
      method: 'POST',
      path: '/insurer-api/endorsements',
      idempotencyKey: id,
      verified: true,
    });
    expect(call!.body).to.deep.equal({
      id,
      kind: 'submission',
      endorsement: {
        id,
        type: 'ADDITION',
        policy_number: 'APIX/GH/2026/0001',
        employee_id: 'APIX-001',
        coverage_start_date: '2026-04-01',
        coverage_end_date: '2027-03-31',
        sum_insured: '300000.00',
        premium_impact: '3650.00',
      },
      // COVERAGE_TYPE_ESC: the employee, spouse and child; the parent is not covered.
      members: [
        { relationship: 'SELF', name: 'Asha Verma', date_of_birth: '1988-05-17', gender: 'FEMALE' },
        { relationship: 'SPOUSE', name: 'Ravi Verma', date_of_birth: '1987-01-09', gender: 'MALE' },
        { relationship: 'CHILD', name: 'Ira Verma', date_of_birth: '2019-11-02', gender: 'OTHER' },
      ],
    });

    await decide(id, { decision: 'APPROVED', uhid: 'UHID-APIX-1', insurer_member_id: 'APIX-M-1' });
    const row = await waitForStatus(id, 'ENDORSEMENT_STATUS_APPROVED');
    expect(row).to.include({ uhid: 'UHID-APIX-1', insurer_member_id: 'APIX-M-1' });
    await workflowHandle(id).result();
    expect(insurer.calls).to.have.length(1);
  });

  it('retries an insurer that answered 503 with the same idempotency key until it accepts', async () => {
    const flaky = await startInsurerServer(SECRET, (_, n) => (n === 1 ? { status: 503 } : { status: 202 }));
    try {
      const world = await loadedWorld(flaky.url);
      const id = await createEndorsement(world, { sum_insured: 300000 });
      const calls = await waitFor(
        async () => [...flaky.calls],
        (c) => c.length >= 2,
        'the retried submission',
      );
      expect(calls.map((c) => c.idempotencyKey)).to.deep.equal([id, id]);
      expect(calls[1]!.raw).to.equal(calls[0]!.raw);
    } finally {
      await flaky.close();
    }
  });

  it('an insurer that refuses the submission (400) leaves it for an operator: stuck at once, never auto-rejected', async () => {
    const refusing = await startInsurerServer(SECRET, () => ({
      status: 400,
      body: { detail: 'policy number unknown to us' },
    }));
    try {
      const world = await loadedWorld(refusing.url);
      const id = await createEndorsement(world, { sum_insured: 300000 });
      const state = await waitFor(
        () => workflowState(id),
        (s) => s.stuck,
        'the refused endorsement to be flagged stuck',
      );
      expect(state).to.include({ status: 'ENDORSEMENT_STATUS_SENT_TO_INSURER', submitted: true });
      expect(refusing.calls).to.have.length(1);
      const { status } = await workflowHandle(id).describe();
      expect(status.name).to.equal('RUNNING');
      await decide(id, { decision: 'REJECTED', rejection_reason: 'policy number unknown to us' });
      await waitForStatus(id, 'ENDORSEMENT_STATUS_REJECTED');
    } finally {
      await refusing.close();
    }
  });

  it('withdraws from the insurer when a submitted endorsement is cancelled', async () => {
    const world = await loadedWorld(insurer.url);
    const id = await createEndorsement(world, { sum_insured: 300000 });
    await waitFor(
      async () => insurer.calls.filter((c) => c.idempotencyKey === id).length,
      (n) => n === 1,
      'the submission',
    );
    const res = await world.api.post(`/v1/policy/endorsements/${id}/cancel`, { token: world.token });
    expect(res.status).to.equal(200);
    const withdrawal = await waitFor(
      async () => insurer.calls.find((c) => c.idempotencyKey === `${id}:withdrawal`),
      (c) => c !== undefined,
      'the withdrawal',
    );
    expect(withdrawal).to.include({ path: `/insurer-api/endorsements/${id}/withdrawal`, verified: true });
    expect(withdrawal!.body).to.deep.include({ id, kind: 'withdrawal' });
    expect(withdrawal!.raw).to.not.contain('Asha');
    await waitForStatus(id, 'ENDORSEMENT_STATUS_CANCELLED');
  });
});
