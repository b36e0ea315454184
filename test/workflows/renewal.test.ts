import fs from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { localInsurerFolders } from '../../adapters/file/local.js';
import { TenantScope } from '../../data/scope.js';
import { createLogger } from '../../infra/logger.js';
import { startPolicyRenewal } from '../../usecases/renewals.js';
import { RENEWAL_PASS } from '../../workflows/periodic/contract.js';
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
import { stack } from '../support/stack.js';
import { waitFor } from './endorsement-support.js';

/** Midnight in India (D13) of a date, plus a minute: the day has begun. */
const onDay = (date: string) => new Date(Date.parse(`${date}T00:01:00+05:30`));

describe('renewal of a policy term (D17)', function () {
  this.timeout(120_000);
  let api: HttpClient;
  before(async () => {
    api = http((await stack().startApi()).url);
  });
  afterEach(() => stack().workerClock.reset());

  /** A client whose policy 2026-04-01..2027-03-31 has two families and a leaver. */
  async function world(adapter: 'file' | 'simulated') {
    const client = await makeClient();
    const reference = await makeReferenceData(client.clientId, {
      adapter,
      adapterSettings: adapter === 'file' ? { formats: ['csv'] } : {},
    });
    const policy = await makePolicy(client.clientId, { reference, cdBalance: '50000.00' });
    const stays = await makeEmployee(client.clientId);
    const spouse = await makeDependent(client.clientId, stays.id, { relationship: 'SPOUSE' });
    // 26 on 2027-04-01: over D16's child age limit of 25 at the new start.
    const child = await makeDependent(client.clientId, stays.id, {
      relationship: 'CHILD',
      dateOfBirth: '2001-01-15',
    });
    const leaver = await makeEmployee(client.clientId, { status: 'INACTIVE' });
    const members = {
      stays: await makeMember(client.clientId, policy.id, stays, { uhid: 'UHID-STAYS' }),
      spouse: await makeMember(client.clientId, policy.id, stays, {
        dependentId: spouse.id,
        uhid: 'UHID-SPOUSE',
      }),
      child: await makeMember(client.clientId, policy.id, stays, {
        dependentId: child.id,
        uhid: 'UHID-CHILD',
      }),
      leaver: await makeMember(client.clientId, policy.id, leaver, {
        uhid: 'UHID-LEAVER',
        sumInsured: '500000.00',
      }),
    };
    const [insurer] = await sql('select code from insurers where id = ?', [reference.insurerId]);
    return {
      client,
      token: client.token(),
      policy,
      stays,
      leaver,
      members,
      insurerCode: insurer.code as string,
    };
  }

  const renewalRow = async (policyId: string) =>
    (
      await sql(
        `select id, status, decided_by, submitted_at, new_policy_id from policy_renewals where policy_id = ?`,
        [policyId],
      )
    )[0];
  /** The daily pass, as its Schedule starts it: opens renewals in their window, nudges open ones. */
  const runPass = () =>
    stack().temporal.workflow.execute(RENEWAL_PASS, {
      taskQueue: stack().taskQueue,
      workflowId: `renewal-pass-${Math.random().toString(36).slice(2)}`,
      args: [],
    });
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

  it('renews end to end through a file insurer: the draft, the confirmation, the renewal file, the new term', async () => {
    const w = await world('file');
    // 2027-01-05 is within 90 days of 2027-03-31: the daily pass opens the renewal.
    stack().workerClock.set(onDay('2027-01-05'));
    await runPass();
    const opened = await waitFor(
      () => renewalRow(w.policy.id),
      (r) => r?.status === 'DRAFT',
      'the draft',
    );

    const draft = await api.get(`/v1/policy/${w.policy.id}/renewal`, { token: w.token });
    expect(draft.status).to.equal(200);
    const r = draft.body.payload.renewal;
    expect(r).to.include({ id: opened.id, policy_id: w.policy.id, status: 'DRAFT', quote_loaded: false });
    expect(r.current_term).to.deep.equal({ start_date: '2026-04-01', end_date: '2027-03-31' });
    expect(r.next_term).to.deep.equal({ start_date: '2027-04-01', end_date: '2028-03-31' });
    expect(r.auto_confirm_date).to.equal('2027-03-01');
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
      path.join(outbox, `renewal-${w.policy.policyNumber.replace(/[^A-Za-z0-9-]+/g, '-')}-2027-04-01.csv`),
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

    // The new term's first day: the new policy takes over.
    stack().workerClock.set(onDay('2027-04-01'));
    await runPass();
    const renewed = await waitFor(
      () => renewalRow(w.policy.id),
      (row) => row.status === 'RENEWED',
      'the renewal',
    );
    await stack().temporal.workflow.getHandle(renewalWorkflowId(w.policy.id, '2027-03-31')).result();
    const [fresh] = await sql(
      `select status, renewed_from, start_date::text as start_date, end_date::text as end_date from policies where id = ?`,
      [renewed.new_policy_id],
    );
    expect(fresh).to.deep.equal({
      status: 'POLICY_STATUS_ACTIVE',
      renewed_from: w.policy.id,
      start_date: '2027-04-01',
      end_date: '2028-03-31',
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
      [w.stays.id, '2027-04-01', '2028-03-31'],
      [w.stays.id, '2027-04-01', '2028-03-31'],
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
  });

  it('declined: nothing is created and the term expires at its end', async () => {
    const w = await world('simulated');
    stack().workerClock.set(onDay('2027-02-10'));
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
    stack().workerClock.set(onDay('2027-04-01'));
    await runPass();
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
    stack().workerClock.set(onDay('2027-03-01'));
    await runPass();
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
