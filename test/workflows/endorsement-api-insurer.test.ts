import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import YAML from 'yaml';
import { loadReferenceData } from '../../usecases/reference-load.js';
import { loadFileSchema } from '../../domain/schemas/reference-load.js';
import { makeClient } from '../support/factories.js';
import { startInsurerServer, type InsurerServer } from '../support/insurer-server.js';
import { stack } from '../support/stack.js';
import {
  createEndorsement,
  decide,
  endorsementApi,
  insurerCommand,
  waitFor,
  waitForStatus,
  workflowHandle,
  workflowState,
} from './endorsement-support.js';
import { checkCdLedgersAfterEachTest } from '../support/cd-ledger-check.js';

const SECRET_ENV = `TEST_API_INSURER_SECRET_${randomBytes(4).toString('hex').toUpperCase()}`;
const SECRET = `whsec_${randomBytes(32).toString('base64url')}`;

/** A load file (D12) with one insurer on the `api` adapter pointing at the insurer's loopback server. */
const loadFile = (baseUrl: string, secretEnv = SECRET_ENV, code = 'APIX') =>
  `
insurers:
  - code: APIX
    name: API Insurer
    logo_url: https://assets.example.com/apix.png
    adapter: api
    adapter_settings:
      base_url: ${baseUrl}
      signing_secret_env: ${secretEnv}
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
`.replaceAll('APIX', code);

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
  // Insurers are the platform's (one per code, D12): each world's insurer points at its own server,
  // so each takes a code of its own.
  let loads = 0;
  async function loadedWorld(baseUrl: string, secretEnv = SECRET_ENV, code = `APIX${++loads}`) {
    const client = await makeClient();
    const file = loadFileSchema.parse(YAML.parse(loadFile(baseUrl, secretEnv, code)));
    const loaded = await loadReferenceData(stack().orm.em.fork(), client.clientId, file);
    const policyNumber = `${code}/GH/2026/0001`;
    return {
      client,
      token: client.token(),
      api: await endorsementApi(),
      policy: { id: loaded.policies[policyNumber]!, policyNumber },
      employee: { id: loaded.employees[`${code}-001`]!, name: 'Asha Verma', employeeCode: `${code}-001` },
    };
  }

  /** The Markdown the Web UI shows as the workflow's current details. */
  const currentDetails = (id: string) =>
    workflowHandle(id)
      .query<{ currentDetails?: string }>('__temporal_workflow_metadata')
      .then((m) => m.currentDetails ?? '');

  it('a submission failing for a missing signing secret: the details show the error and its fix; an operator decision is refused until forced, and the override is audited with its reason', async function () {
    this.timeout(300_000); // eight runs of the insurer command
    const unset = `${SECRET_ENV}_UNSET`;
    const world = await loadedWorld(insurer.url, unset, 'APIU');
    const id = await createEndorsement(world, { sum_insured: 300000 });
    const details = await waitFor(
      () => currentDetails(id),
      (d) => d.includes('**submission failing:**'),
      'the details to show the failing submission',
    );
    expect(details).to.contain(
      `**submission failing:** submission of ${id} to insurer APIU: ${unset} is not set to a signing secret of at least 32 bytes in the worker's environment (since attempt 1)`,
    );
    expect(details).to.contain(
      `**to fix:** set ${unset} in the worker's environment to the signing secret agreed with insurer APIU (at least 32 bytes) and restart the worker; the submission is retried by itself`,
    );
    expect(details).to.contain('**insurer last said:** nothing: it has not received the endorsement');
    expect(details).to.contain(
      '**operator can:**\n\nfix the cause above: the submission is retried by itself\n\n`npm run -s ops -- cancel',
    );
    expect(details).to.not.contain('insurer -- approve');
    expect(details).to.not.contain('Verma');
    expect(insurer.calls.filter((c) => c.idempotencyKey === id)).to.have.length(0);

    // The operator's approve, as the details used to invite: refused with the status, nothing recorded.
    const refused = await insurerCommand(['approve', id, '--uhid', 'UHID-F1']);
    expect(refused.code).to.equal(1);
    expect(refused.stderr.trim()).to.equal(
      `refused: ${id}: endorsement is SENT_TO_INSURER but the insurer has not received it (its submission has not succeeded; the workflow's details say why); record it anyway only with --force --reason "…"`,
    );
    const bracketed = await insurerCommand(['approve', id, '[--json]']);
    expect(bracketed.code).to.equal(2);
    expect(bracketed.stderr.trim()).to.equal(
      'optional arguments go without their brackets: type `--json`, not `[--json]`',
    );
    for (const args of [
      ['approve', id, '--forse'],
      ['approve', id, '--uhid', '…'],
    ]) {
      const usage = await insurerCommand(args);
      expect(usage.code, args.join(' ')).to.equal(2);
      expect(usage.stderr, args.join(' ')).to.contain('usage:\n  insurer approve <endorsement_id>');
    }
    const bare = await insurerCommand(['approve', id, '--force']);
    expect(bare.code).to.equal(2);
    expect(bare.stderr).to.contain('--force needs --reason "…"');
    expect(await workflowState(id)).to.include({ decision: null, received: false });

    const reason = 'insurer confirmed cover by email, ticket 4711';
    const forced = await insurerCommand(['approve', id, '--uhid', 'UHID-F1', '--force', '--reason', reason]);
    expect(forced.code, forced.stderr).to.equal(0);
    expect(forced.stdout.trim()).to.equal(`accepted: ${id}: APPROVED recorded`);
    // The decision ends the submission that kept failing; the approval is applied at once.
    expect(await waitForStatus(id, 'ENDORSEMENT_STATUS_APPROVED')).to.include({ uhid: 'UHID-F1' });

    const trail = await world.api.get(`/v1/audit?entity=endorsement&entity_id=${id}`, {
      token: world.client.token(['policy.all']),
    });
    expect(trail.status).to.equal(200);
    const forcedEntries = trail.body.payload.audit_events.filter(
      (e: { action: string }) => e.action === 'forced_approve',
    );
    expect(forcedEntries).to.have.length(1);
    expect(forcedEntries[0]).to.deep.include({
      entity: 'endorsement',
      entity_id: id,
      changed_fields: ['status'],
      actor: { client_id: world.client.clientId, token_id: null },
      reason,
    });
    // A repeat answers duplicate and writes no second entry.
    const again = await insurerCommand(['approve', id, '--force', '--reason', reason]);
    expect(again.stdout.trim()).to.equal(`duplicate: ${id}: already APPROVED`);
    const after = await world.api.get(`/v1/audit?entity=endorsement&entity_id=${id}`, {
      token: world.client.token(['policy.all']),
    });
    expect(
      after.body.payload.audit_events.filter((e: { action: string }) => e.action === 'forced_approve'),
    ).to.have.length(1);
  });

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
        policy_number: world.policy.policyNumber,
        employee_id: world.employee.employeeCode,
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
