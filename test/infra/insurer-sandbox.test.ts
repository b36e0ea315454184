import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import YAML from 'yaml';
import { createApiAdapter } from '../../adapters/api-insurer/adapter.js';
import { createInsurerClient } from '../../usecases/insurer-exchange/principals.js';
import { loadReferenceData } from '../../usecases/reference-load.js';
import { loadFileSchema } from '../../domain/schemas/reference-load.js';
import { signWebhook } from '../../domain/webhooks/signature.js';
import {
  decisionsClient,
  sandboxSettingsSchema,
  startInsurerSandbox,
  type RunningSandbox,
} from '../../infra/insurer-sandbox.js';
import { freePort } from '../../infra/ports.js';
import { makeClient } from '../support/factories.js';
import { stack } from '../support/stack.js';
import {
  createEndorsement,
  endorsementApi,
  waitFor,
  waitForStatus,
} from '../workflows/endorsement-support.js';

const SECRET_ENV = `TEST_SANDBOX_SECRET_${randomBytes(4).toString('hex').toUpperCase()}`;
const SECRET = randomBytes(32).toString('hex');
const CODE = `SBX${randomBytes(3).toString('hex').toUpperCase()}`;

/** A client whose only insurer is on the `api` adapter, pointing at the sandbox's address. */
const loadFile = (baseUrl: string) => `
insurers:
  - { code: ${CODE}, name: Sandbox Insurer, logo_url: 'https://assets.example.com/sbx.png', adapter: api,
      adapter_settings: { base_url: '${baseUrl}', signing_secret_env: ${SECRET_ENV}, timeout_ms: 5000 } }
tpas:
  - { code: MEDI, name: Medi Assist }
products:
  - { code: ${CODE}-GH, name: Sandbox Group Health, category: Group Health, insurer: ${CODE} }
policies:
  - policy_number: ${CODE}/GH/2026/0001
    insurer: ${CODE}
    product: ${CODE}-GH
    tpa: MEDI
    net_premium: 100000
    gross_premium: 118000
    coverage_type: COVERAGE_TYPE_E
    type: POLICY_TYPE_FAMILY_FLOATER
    status: POLICY_STATUS_ACTIVE
    start_date: '2026-04-01'
    end_date: '2027-03-31'
    slabs:
      - { sum_insured: 300000, annual_premium: 3650 }
    cd_balance: 500000
employees:
  - { employee_id: SBX-001, name: Asha Verma, email: asha.sbx@employer.example.com, phone_number: '+919800000201',
      date_of_birth: '1988-05-17', gender: GENDER_FEMALE, date_of_joining: '2020-01-06', status: EMPLOYEE_STATUS_ACTIVE }
  - { employee_id: SBX-002, name: Reject Me, email: reject.sbx@employer.example.com, phone_number: '+919800000202',
      date_of_birth: '1990-02-11', gender: GENDER_MALE, date_of_joining: '2021-03-01', status: EMPLOYEE_STATUS_ACTIVE }
  - { employee_id: SBX-003, name: Kiran Rao, email: kiran.sbx@employer.example.com, phone_number: '+919800000203',
      date_of_birth: '1985-07-21', gender: GENDER_MALE, date_of_joining: '2019-08-12', status: EMPLOYEE_STATUS_ACTIVE }
`;

const settings = (approveAfter: number) =>
  sandboxSettingsSchema.parse({
    path: '/sbx',
    approve_after_seconds: approveAfter,
    reject_names_matching: '^reject',
    uhid_prefix: 'SBX-',
  });

describe('the insurer API sandbox (npm start runs it for the demo api insurer)', function () {
  this.timeout(90_000);
  let port: number;
  let dir: string;
  let deliver: ReturnType<typeof decisionsClient>;
  let world: Awaited<ReturnType<typeof loadedWorld>>;
  const running: RunningSandbox[] = [];

  async function loadedWorld() {
    const client = await makeClient();
    const file = loadFileSchema.parse(YAML.parse(loadFile(`http://127.0.0.1:${port}/sbx`)));
    const loaded = await loadReferenceData(stack().orm.em.fork(), client.clientId, file);
    const policy = { id: loaded.policies[`${CODE}/GH/2026/0001`]!, policyNumber: `${CODE}/GH/2026/0001` };
    const api = await endorsementApi();
    const person = (code: string, name: string) => ({
      client,
      token: client.token(),
      api,
      policy,
      employee: { id: loaded.employees[code]!, name, employeeCode: code },
    });
    return {
      asha: person('SBX-001', 'Asha Verma'),
      rejected: person('SBX-002', 'Reject Me'),
      kiran: person('SBX-003', 'Kiran Rao'),
    };
  }

  const start = async (approveAfter: number) => {
    const sandbox = await startInsurerSandbox({
      settings: settings(approveAfter),
      secret: SECRET,
      deliver,
      stateFile: path.join(dir, 'owed.json'),
      port,
    });
    running.push(sandbox);
    return sandbox;
  };

  before(async () => {
    process.env[SECRET_ENV] = SECRET;
    port = await freePort();
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gh-sandbox-'));
    world = await loadedWorld();
    const principal = await createInsurerClient(stack().orm.em.fork(), CODE);
    deliver = decisionsClient((await stack().startApi()).url, principal.client_id, principal.client_secret);
  });
  afterEach(async () => {
    for (const s of running.splice(0)) await s.close();
  });
  after(async () => {
    delete process.env[SECRET_ENV];
    await fs.rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  });

  it('receives a signed submission and approves it through the decisions API, with a UHID', async () => {
    const sandbox = await start(1);
    expect(sandbox.url).to.equal(`http://127.0.0.1:${port}/sbx`);
    const id = await createEndorsement(world.asha, { sum_insured: 300000 });
    const row = await waitForStatus(id, 'ENDORSEMENT_STATUS_APPROVED');
    expect(row.uhid).to.match(/^SBX-[0-9A-F]{10}$/);
    await waitFor(
      async () => sandbox.owed(),
      (o) => o.length === 0,
      'the delivered decision forgotten',
    );
  });

  it('rejects a member whose name matches its rule, with the rule’s reason', async () => {
    await start(1);
    const id = await createEndorsement(world.rejected, { sum_insured: 300000 });
    const row = await waitForStatus(id, 'ENDORSEMENT_STATUS_REJECTED');
    expect(row.rejection_reason).to.equal('Declined by the insurer sandbox rule');
  });

  it('answers a bad signature 401 and decides nothing', async () => {
    const sandbox = await start(0);
    const body = JSON.stringify({ id: 'end_forged', kind: 'submission', members: [] });
    const forged = await fetch(`${sandbox.url}/endorsements`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Signature: signWebhook('x'.repeat(64), body, 1) },
      body,
    });
    expect(forged.status).to.equal(401);
    expect(await forged.json()).to.deep.equal({ detail: 'bad signature' });
    expect(sandbox.owed()).to.deep.equal([]);
  });

  it("receives a renewal through the api adapter's signed request: a receipt by UHID, nothing to decide (D17)", async () => {
    const sandbox = await start(0);
    const adapter = createApiAdapter({ secret: (name) => (name === SECRET_ENV ? SECRET : undefined) });
    const member = { employeeCode: 'SBX-001', insurerMemberId: null };
    const renewal = {
      adapter: 'api' as const,
      adapterSettings: {
        base_url: sandbox.url,
        signing_secret_env: SECRET_ENV,
        timeout_ms: 5_000,
        sla_days: 14,
      },
      renewalId: 'rnw_sandbox',
      clientId: 'cli_1',
      policyId: 'pol_1',
      policyNumber: `${CODE}/GH/2026/0001`,
      insurerCode: CODE,
      termStart: '2027-04-01',
      termEnd: '2028-03-31',
      slabs: [{ sum_insured: '300000.00', annual_premium: '3650.00' }],
      premium: '3650.00',
      carried: [
        {
          ...member,
          reference: 'mem_1',
          relationship: 'SELF' as const,
          uhid: 'SBX-1',
          sumInsured: '300000.00',
        },
      ],
      dropped: [
        {
          ...member,
          reference: 'mem_2',
          relationship: 'CHILD' as const,
          uhid: 'SBX-2',
          reason: 'CHILD_AGED_OUT' as const,
        },
      ],
    };
    await adapter.submitRenewal!(renewal);
    // A retry (same renewal id) is answered alike and recorded once.
    await adapter.submitRenewal!(renewal);
    expect(sandbox.renewals()).to.deep.equal([
      {
        id: 'rnw_sandbox',
        policy_number: `${CODE}/GH/2026/0001`,
        term_start: '2027-04-01',
        term_end: '2028-03-31',
        carried: ['SBX-1'],
        dropped: ['SBX-2'],
      },
    ]);
    expect(sandbox.owed(), 'a renewal is no endorsement: nothing to decide').to.deep.equal([]);

    const body = JSON.stringify({ id: 'rnw_forged', kind: 'renewal' });
    const forged = await fetch(`${sandbox.url}/renewals`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Signature: signWebhook('x'.repeat(64), body, 1) },
      body,
    });
    expect(forged.status).to.equal(401);
    const malformed = await fetch(`${sandbox.url}/renewals`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Signature: signWebhook(SECRET, body, Math.floor(Date.now() / 1000)),
      },
      body,
    });
    expect(malformed.status).to.equal(400);
    expect(await malformed.json()).to.deep.equal({ detail: 'not a renewal' });
    expect(sandbox.renewals().map((r) => r.id)).to.deep.equal(['rnw_sandbox']);
  });

  it('keeps a decision it owes across a restart and delivers it afterwards', async () => {
    const first = await start(3);
    const id = await createEndorsement(world.kiran, { sum_insured: 300000 });
    const owed = await waitFor(
      async () => first.owed(),
      (o) => o.length > 0,
      'the submission received',
    );
    expect(owed.map((d) => [d.endorsement_id, d.decision])).to.deep.equal([[id, 'APPROVED']]);
    await first.close();
    running.splice(0);
    const saved = JSON.parse(await fs.readFile(path.join(dir, 'owed.json'), 'utf8')) as {
      endorsement_id: string;
    }[];
    expect(saved.map((d) => d.endorsement_id)).to.deep.equal([id]);

    await start(3);
    const row = await waitForStatus(id, 'ENDORSEMENT_STATUS_APPROVED');
    expect(row.uhid).to.match(/^SBX-/);
  });
});
