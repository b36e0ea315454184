import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { localInsurerFolders } from '../../adapters/file/local.js';
import { TenantScope } from '../../data/scope.js';
import { createLogger } from '../../infra/logger.js';
import { startPolicyRenewal } from '../../usecases/policy-year/renewals.js';
import { RENEWAL_PASS, type RenewalPassResult } from '../../workflows/periodic/contract.js';
import { renewalWorkflowId } from '../../workflows/renewal/contract.js';
import {
  makeClient,
  makeDependent,
  makeEmployee,
  makeMember,
  makePolicy,
  makeReferenceData,
  sql,
} from '../support/factories.js';
import { client as http, type HttpClient } from '../support/http.js';
import { startInsurerServer, type InsurerServer } from '../support/insurer-server.js';
import { stack } from '../support/stack.js';
import { waitFor } from './endorsement-support.js';

/** Midnight in India (D13) of a date, plus a minute: the day has begun. */
const onDay = (date: string) => new Date(Date.parse(`${date}T00:01:00+05:30`));

/**
 * The term this file's policies run: one no other test's policy ends in, so the daily pass (which is
 * platform-wide: every ACTIVE policy in its window, any tenant) opens renewals for this file's
 * policies only, and each test asserts it started no other.
 */
const TERM = { start_date: '2030-10-01', end_date: '2031-09-30' };
const NEXT_TERM = { start_date: '2031-10-01', end_date: '2032-09-30' };
/** Within RENEWAL_LEAD_DAYS (90) of the end; the day it confirms itself (30 days before the end). */
const IN_WINDOW = '2031-07-05';
const AUTO_CONFIRM_DAY = '2031-08-31';

/** The `api` insurer's signing secret, in the worker's environment under the name its settings give. */
const SECRET_ENV = `TEST_RENEWAL_INSURER_SECRET_${randomBytes(4).toString('hex').toUpperCase()}`;
const SECRET = `whsec_${randomBytes(32).toString('base64url')}`;

describe('renewal of a policy term (D17)', function () {
  this.timeout(120_000);
  let api: HttpClient;
  /** The `api` insurer's API on loopback: checks each call's signature with the shared secret. */
  let insurer: InsurerServer;
  before(async () => {
    api = http((await stack().startApi()).url);
    process.env[SECRET_ENV] = SECRET;
    insurer = await startInsurerServer(SECRET);
  });
  after(async () => {
    delete process.env[SECRET_ENV];
    await insurer?.close();
  });
  afterEach(() => stack().workerClock.reset());

  /** A client whose policy (TERM) has two families and a leaver, on an insurer of `adapter`. */
  async function world(adapter: 'file' | 'simulated' | 'api') {
    const client = await makeClient();
    const adapterSettings = {
      file: { formats: ['csv'] },
      simulated: {},
      api: { base_url: insurer.url, signing_secret_env: SECRET_ENV, timeout_ms: 5000 },
    }[adapter];
    const reference = await makeReferenceData(client.clientId, { adapter, adapterSettings });
    const policy = await makePolicy(client.clientId, {
      reference,
      cdBalance: '50000.00',
      startDate: TERM.start_date,
      endDate: TERM.end_date,
    });
    const stays = await makeEmployee(client.clientId);
    const spouse = await makeDependent(client.clientId, stays.id, { relationship: 'SPOUSE' });
    // 26 on 2031-10-01: over D16's child age limit of 25 at the new start.
    const child = await makeDependent(client.clientId, stays.id, {
      relationship: 'CHILD',
      dateOfBirth: '2005-06-15',
    });
    const leaver = await makeEmployee(client.clientId, { status: 'INACTIVE' });
    const cover = { start: TERM.start_date, end: TERM.end_date };
    const members = {
      stays: await makeMember(client.clientId, policy.id, stays, { ...cover, uhid: 'UHID-STAYS' }),
      spouse: await makeMember(client.clientId, policy.id, stays, {
        ...cover,
        dependentId: spouse.id,
        uhid: 'UHID-SPOUSE',
      }),
      child: await makeMember(client.clientId, policy.id, stays, {
        ...cover,
        dependentId: child.id,
        uhid: 'UHID-CHILD',
      }),
      leaver: await makeMember(client.clientId, policy.id, leaver, {
        ...cover,
        uhid: 'UHID-LEAVER',
        sumInsured: '500000.00',
      }),
    };
    const [row] = await sql('select code from insurers where id = ?', [reference.insurerId]);
    return {
      client,
      token: client.token(),
      policy,
      stays,
      leaver,
      members,
      insurerCode: row.code as string,
    };
  }
  type World = Awaited<ReturnType<typeof world>>;

  const renewalRow = async (policyId: string) =>
    (
      await sql(
        `select id, status, decided_by, submitted_at, new_policy_id from policy_renewals where policy_id = ?`,
        [policyId],
      )
    )[0];
  /** The daily pass, as its Schedule starts it: opens renewals in their window, nudges open ones. */
  const runPass = (): Promise<RenewalPassResult> =>
    stack().temporal.workflow.execute(RENEWAL_PASS, {
      taskQueue: stack().taskQueue,
      workflowId: `renewal-pass-${Math.random().toString(36).slice(2)}`,
      args: [],
    });
  /** The pass on a day the window of this test's policy (and of no other policy) is open. */
  const openByPass = async (w: World) => {
    stack().workerClock.set(onDay(IN_WINDOW));
    const pass = await runPass();
    expect(pass.started, 'the pass opened only this policy: no other ends in its window').to.equal(1);
    return waitFor(
      () => renewalRow(w.policy.id),
      (r) => r?.status === 'DRAFT',
      'the draft',
    );
  };
  const events = async (clientId: string) =>
    (
      await sql(`select type from webhook_events where client_id = ? order by created_at, type`, [clientId])
    ).map((e: { type: string }) => e.type);
  /** The ledger's entries sum to the policy's balance (D15). */
  const ledgerBalance = async (policyId: string) => {
    const [row] = await sql(
      `select p.cd_balance::text as balance, (select coalesce(sum(amount), 0)::text from cd_ledger_entries l
         where l.policy_id = p.id) as entries from policies p where p.id = ?`,
      [policyId],
    );
    return row as { balance: string; entries: string };
  };

  /**
   * The new term's first day: the pass nudges the renewal, the new policy takes over with the carried
   * members and their UHIDs, the CD balance moves by two entries summing to zero, the old term ends.
   */
  async function expectRenewedOnNewTermStart(w: World) {
    stack().workerClock.set(onDay(NEXT_TERM.start_date));
    const pass = await runPass();
    expect(pass.started, 'no window of any policy opens that day').to.equal(0);
    const renewed = await waitFor(
      () => renewalRow(w.policy.id),
      (row) => row.status === 'RENEWED',
      'the renewal',
    );
    const outcome = await stack()
      .temporal.workflow.getHandle(renewalWorkflowId(w.policy.id, TERM.end_date))
      .result();
    expect(outcome).to.equal('RENEWED');
    const [fresh] = await sql(
      `select status, renewed_from, start_date::text as start_date, end_date::text as end_date from policies where id = ?`,
      [renewed.new_policy_id],
    );
    expect(fresh).to.deep.equal({
      status: 'POLICY_STATUS_ACTIVE',
      renewed_from: w.policy.id,
      ...NEXT_TERM,
    });
    const [old] = await sql('select status, cd_balance::text as cd_balance from policies where id = ?', [
      w.policy.id,
    ]);
    expect(old).to.deep.equal({ status: 'POLICY_STATUS_INACTIVE', cd_balance: '0.00' });

    const members = await api.get(`/v1/policy/${renewed.new_policy_id}/members`, { token: w.token });
    expect(members.status).to.equal(200);
    expect(
      members.body.payload.members.map((m: any) => [
        m.employee_id,
        m.coverage_start_date,
        m.coverage_end_date,
      ]),
    ).to.have.deep.members([
      [w.stays.id, NEXT_TERM.start_date, NEXT_TERM.end_date],
      [w.stays.id, NEXT_TERM.start_date, NEXT_TERM.end_date],
    ]);
    const uhids = await sql(`select uhid from policy_members where policy_id = ? order by uhid`, [
      renewed.new_policy_id,
    ]);
    expect(uhids.map((u: { uhid: string }) => u.uhid)).to.deep.equal(['UHID-SPOUSE', 'UHID-STAYS']);

    // The CD balance moved by two entries that sum to zero; each ledger still sums to its balance.
    const moves = await sql(
      `select policy_id, amount::text as amount from cd_ledger_entries where reference like ? order by amount`,
      [`renewal:${renewed.id}:%`],
    );
    expect(moves).to.deep.equal([
      { policy_id: w.policy.id, amount: '-50000.00' },
      { policy_id: renewed.new_policy_id, amount: '50000.00' },
    ]);
    expect(await ledgerBalance(w.policy.id)).to.deep.equal({ balance: '0.00', entries: '0.00' });
    expect(await ledgerBalance(renewed.new_policy_id)).to.deep.equal({
      balance: '50000.00',
      entries: '50000.00',
    });
    const fetched = await api.get(`/v1/policy/${renewed.new_policy_id}`, { token: w.token });
    expect(fetched.body.payload.policy).to.include({ cd_balance: 50000, status: 'POLICY_STATUS_ACTIVE' });

    expect(await events(w.client.clientId)).to.include.members([
      'policy.renewal_drafted',
      'policy.renewal_confirmed',
      'policy.renewed',
    ]);
    const final = await api.get(`/v1/policy/${w.policy.id}/renewal`, { token: w.token });
    expect(final.body.payload.renewal).to.include({
      status: 'RENEWED',
      new_policy_id: renewed.new_policy_id,
    });
    return renewed;
  }

  it('renews end to end through a file insurer: the draft, the confirmation, the renewal file, the new term', async () => {
    const w = await world('file');
    // IN_WINDOW is within 90 days of the term's end: the daily pass opens the renewal.
    const opened = await openByPass(w);

    const draft = await api.get(`/v1/policy/${w.policy.id}/renewal`, { token: w.token });
    expect(draft.status).to.equal(200);
    const r = draft.body.payload.renewal;
    expect(r).to.include({ id: opened.id, policy_id: w.policy.id, status: 'DRAFT', quote_loaded: false });
    expect(r.current_term).to.deep.equal(TERM);
    expect(r.next_term).to.deep.equal(NEXT_TERM);
    expect(r.auto_confirm_date).to.equal(AUTO_CONFIRM_DAY);
    expect(
      r.members_carried.map((m: any) => [m.member_id, m.uhid, m.annual_premium_after]),
    ).to.have.deep.members([
      [w.members.stays.id, 'UHID-STAYS', 3650],
      [w.members.spouse.id, 'UHID-SPOUSE', 3650],
    ]);
    expect(r.members_dropped.map((m: any) => [m.member_id, m.reason])).to.have.deep.members([
      [w.members.child.id, 'CHILD_AGED_OUT'],
      [w.members.leaver.id, 'EMPLOYEE_INACTIVE'],
    ]);
    expect(r).to.include({
      premium_before: 3 * 3650 + 7300,
      premium_after: 7300,
      cd_balance: 50000,
      cd_top_up_needed: 0,
    });

    const confirmed = await api.post(`/v1/policy/${w.policy.id}/renewal/confirm`, { token: w.token });
    expect(confirmed.status).to.equal(200);
    expect(confirmed.body.payload.renewal).to.include({ status: 'CONFIRMED', decided_by: 'client' });
    expect(confirmed.body.payload.message).to.equal('Renewal confirmed successfully');
    const again = await api.post(`/v1/policy/${w.policy.id}/renewal/confirm`, { token: w.token });
    expect(again.status).to.equal(200);
    expect(again.body.payload.renewal.decided_at).to.equal(confirmed.body.payload.renewal.decided_at);
    const decline = await api.post(`/v1/policy/${w.policy.id}/renewal/decline`, { token: w.token });
    expect(decline.status).to.equal(409);
    expect(decline.body).to.deep.equal({
      type: 'CONFLICT',
      title: 'Renewal Already Decided',
      detail: 'the renewal is CONFIRMED',
      instance: `/v1/policy/${w.policy.id}/renewal/decline`,
    });

    // The insurer gets the renewal file in its outbox.
    await waitFor(
      () => renewalRow(w.policy.id),
      (row) => row.submitted_at !== null,
      'the submission',
    );
    const { outbox } = localInsurerFolders(stack().config.dataDir, w.insurerCode);
    const file = await fs.readFile(
      path.join(
        outbox,
        `renewal-${w.policy.policyNumber.replace(/[^A-Za-z0-9-]+/g, '-')}-${NEXT_TERM.start_date}.csv`,
      ),
      'utf8',
    );
    // Text cells come quoted (infra/spreadsheet-files.ts); none of these holds a comma.
    const rows = file
      .trim()
      .split('\r\n')
      .map((l) => l.split(',').map((c) => c.replace(/^"(.*)"$/, '$1')));
    expect(rows[0]).to.deep.equal([
      'Reference',
      'Policy Number',
      'Action',
      'Employee Code',
      'Relationship',
      'UHID',
      'Insurer Member ID',
      'Sum Insured',
      'Term Start',
      'Term End',
      'Reason',
    ]);
    expect(rows.filter((r) => r[2] === 'RENEW')).to.have.length(2);
    const child = rows.find((r) => r[0] === w.members.child.id)!;
    expect([child[2], child.at(-1)]).to.deep.equal(['DROP', 'CHILD_AGED_OUT']);

    await expectRenewedOnNewTermStart(w);
  });

  it('renews end to end through an api insurer: one signed renewal request by UHID, no names, then the new term', async () => {
    const w = await world('api');
    const opened = await openByPass(w);
    const confirmed = await api.post(`/v1/policy/${w.policy.id}/renewal/confirm`, { token: w.token });
    expect(confirmed.status).to.equal(200);
    expect(confirmed.body.payload.renewal).to.include({ status: 'CONFIRMED', decided_by: 'client' });

    // The protocol answers a renewal synchronously: a 2xx is the insurer's receipt, then it is sent.
    await waitFor(
      () => renewalRow(w.policy.id),
      (row) => row.submitted_at !== null,
      'the submission',
    );
    const calls = insurer.calls.filter((c) => c.idempotencyKey === opened.id);
    expect(calls).to.have.length(1);
    const [call] = calls;
    expect(call).to.include({
      method: 'POST',
      path: '/insurer-api/renewals',
      contentType: 'application/json',
      verified: true,
    });
    const { carried, dropped, ...terms } = call!.body;
    expect(terms).to.deep.equal({
      id: opened.id,
      kind: 'renewal',
      policy_number: w.policy.policyNumber,
      term_start: NEXT_TERM.start_date,
      term_end: NEXT_TERM.end_date,
      slabs: [
        { sum_insured: '300000.00', annual_premium: '3650.00' },
        { sum_insured: '500000.00', annual_premium: '7300.00' },
      ],
      premium: '7300.00',
    });
    expect(carried).to.have.deep.members([
      {
        reference: w.members.stays.id,
        employee_id: w.stays.employeeCode,
        relationship: 'SELF',
        uhid: 'UHID-STAYS',
        insurer_member_id: null,
        sum_insured: '300000.00',
      },
      {
        reference: w.members.spouse.id,
        employee_id: w.stays.employeeCode,
        relationship: 'SPOUSE',
        uhid: 'UHID-SPOUSE',
        insurer_member_id: null,
        sum_insured: '300000.00',
      },
    ]);
    expect(dropped).to.have.deep.members([
      {
        reference: w.members.child.id,
        employee_id: w.stays.employeeCode,
        relationship: 'CHILD',
        uhid: 'UHID-CHILD',
        insurer_member_id: null,
        reason: 'CHILD_AGED_OUT',
      },
      {
        reference: w.members.leaver.id,
        employee_id: w.leaver.employeeCode,
        relationship: 'SELF',
        uhid: 'UHID-LEAVER',
        insurer_member_id: null,
        reason: 'EMPLOYEE_INACTIVE',
      },
    ]);
    // Members by their ids with the insurer: no names, emails, phones or dates of birth in clear.
    for (const personal of [w.stays.name, w.leaver.name, w.stays.email, w.stays.dateOfBirth, '2005-06-15']) {
      expect(call!.raw).not.to.contain(personal);
    }

    await expectRenewedOnNewTermStart(w);
    // Sent once: the renewal's later steps call the insurer no more.
    expect(insurer.calls.filter((c) => c.idempotencyKey === opened.id)).to.have.length(1);
  });

  it('declined: nothing is created and the term expires at its end', async () => {
    const w = await world('simulated');
    stack().workerClock.set(onDay('2031-08-10'));
    const deps = {
      temporal: stack().temporal,
      config: stack().config,
      clock: stack().workerClock,
      logger: createLogger('silent'),
    };
    await startPolicyRenewal(
      deps,
      TenantScope.of(stack().serviceOrm.em, w.client.clientId),
      w.policy.id,
      null,
    );
    const declined = await api.post(`/v1/policy/${w.policy.id}/renewal/decline`, { token: w.token });
    expect(declined.status).to.equal(200);
    expect(declined.body.payload.renewal).to.include({
      status: 'DECLINED',
      decided_by: 'client',
      new_policy_id: null,
    });
    const twice = await api.post(`/v1/policy/${w.policy.id}/renewal/decline`, { token: w.token });
    expect(twice.status).to.equal(200);
    expect(twice.body.payload.renewal.status).to.equal('DECLINED');
    const confirm = await api.post(`/v1/policy/${w.policy.id}/renewal/confirm`, { token: w.token });
    expect(confirm.status).to.equal(409);
    expect(confirm.body.detail).to.equal('the renewal is DECLINED');

    // Past the auto-confirm day nothing confirms; the day after the end, the term expires.
    stack().workerClock.set(onDay(NEXT_TERM.start_date));
    expect((await runPass()).started).to.equal(0);
    await waitFor(
      () => renewalRow(w.policy.id),
      (row) => row.status === 'EXPIRED',
      'the expiry',
    );
    const [old] = await sql('select status from policies where id = ?', [w.policy.id]);
    expect(old.status).to.equal('POLICY_STATUS_INACTIVE');
    expect(await sql('select id from policies where renewed_from = ?', [w.policy.id])).to.deep.equal([]);
    expect(await events(w.client.clientId)).to.include.members([
      'policy.renewal_drafted',
      'policy.renewal_declined',
      'policy.expired',
    ]);
  });

  it('confirms itself RENEWAL_AUTO_CONFIRM_DAYS before the end when HR says nothing', async () => {
    const w = await world('simulated');
    stack().workerClock.set(onDay(AUTO_CONFIRM_DAY));
    expect((await runPass()).started, 'this policy alone ends in the window').to.equal(1);
    const row = await waitFor(
      () => renewalRow(w.policy.id),
      (r) => r?.status === 'CONFIRMED',
      'the confirmation',
    );
    expect(row.decided_by).to.equal('auto');
    await waitFor(
      () => renewalRow(w.policy.id),
      (r) => r.submitted_at !== null,
      'the submission (recorded as sent)',
    );
  });

  it("answers 404 when no renewal is open, and for another client's policy", async () => {
    const w = await world('simulated');
    const none = await api.get(`/v1/policy/${w.policy.id}/renewal`, { token: w.token });
    expect(none.status).to.equal(404);
    expect(none.body).to.deep.equal({
      type: 'NOT_FOUND',
      title: 'Renewal Not Found',
      detail: '',
      instance: `/v1/policy/${w.policy.id}/renewal`,
    });
    const confirm = await api.post(`/v1/policy/${w.policy.id}/renewal/confirm`, { token: w.token });
    expect(confirm.status).to.equal(404);
    expect(confirm.body.title).to.equal('Renewal Not Found');
    const other = await makeClient();
    const foreign = await api.get(`/v1/policy/${w.policy.id}/renewal`, { token: other.token() });
    expect(foreign.status).to.equal(404);
    expect(foreign.body.title).to.equal('Renewal Not Found');
  });
});
