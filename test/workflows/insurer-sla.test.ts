import { expect } from 'chai';
import { SLA_WATCH_TOLD } from '../../workflows/endorsement/patches.js';
import { addWebhook } from '../../usecases/webhooks/endpoints.js';
import {
  EndorsementSlaBreached,
  EndorsementStuck,
  InsurerId,
  SlaDueAt,
  SubmittedAt,
} from '../../workflows/search-attributes.js';
import { sql } from '../support/factories.js';
import { stack } from '../support/stack.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';
import {
  createEndorsement,
  decide,
  endorsementApi,
  historySteps,
  makeWorld,
  replaysWhole,
  sentToInsurer,
  slaWatch,
  waitFor,
  waitForStatus,
  workflowHandle,
} from './endorsement-support.js';

const attributes = async (id: string) => (await workflowHandle(id).describe()).typedSearchAttributes;

describe('insurer SLA, second tier (D14)', () => {
  const receivers: Receiver[] = [];
  let allowPrivate = false;
  // Loopback receivers need the flag (off by default in tests).
  before(() => {
    allowPrivate = stack().config.WEBHOOK_ALLOW_PRIVATE;
    stack().config.WEBHOOK_ALLOW_PRIVATE = true;
  });
  after(async () => {
    stack().config.WEBHOOK_ALLOW_PRIVATE = allowPrivate;
    await Promise.all(receivers.map((r) => r.close()));
  });

  async function subscribe(clientId: string): Promise<Receiver> {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const added = await addWebhook(stack().orm.em, stack().config, {
      clientId,
      url: receiver.url,
      events: 'endorsement.sla_breached',
    });
    receiver.secret = added.secret;
    return receiver;
  }

  it("counts the insurer's own sla_days from its adapter settings before the service default", async function () {
    this.timeout(60_000);
    const api = await endorsementApi({ config: { ...stack().config, INSURER_SLA_DEFAULT: '2s' } });
    const world = await makeWorld({ api, adapterSettings: { sla_days: 3 } });
    const id = await createEndorsement(world);
    await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
    expect((await slaWatch(id)).dueInDays).to.equal(3);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect((await attributes(id)).get(EndorsementSlaBreached)).to.equal(false);
  });

  it("any insurer but a file one: the routing's answer says who has it and since when; nothing reads it back", async function () {
    this.timeout(60_000);
    const world = await makeWorld({ adapterSettings: { sla_days: 3 } });
    const id = await createEndorsement(world);
    await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
    const watch = await slaWatch(id);
    const row = await sentToInsurer(id);
    expect(watch).to.include({ insurerId: row.insurer_id, dueInDays: 3 });
    // Read in the routing's call right after the change, by the database's clock: not before the row moved.
    expect(watch.submittedAt >= row.sent_at, `${watch.submittedAt} after ${row.sent_at}`).to.equal(true);
    const steps = await historySteps(id);
    expect(steps.local).to.deep.equal(['reviewHoldAndRoute']);
    expect(steps.patches).to.include(SLA_WATCH_TOLD);

    expect(await decide(id, { decision: 'APPROVED', uhid: 'UHID-TOLD' })).to.include({ result: 'accepted' });
    expect(await workflowHandle(id).result()).to.include({ status: 'ENDORSEMENT_STATUS_APPROVED' });
    expect((await historySteps(id)).local).to.deep.equal(['reviewHoldAndRoute', 'applyApproval']);
    await replaysWhole(workflowHandle(id).workflowId);
  });

  it('past the SLA marks the endorsement breached, announces it once, and keeps waiting', async function () {
    this.timeout(60_000);
    const api = await endorsementApi({ config: { ...stack().config, INSURER_SLA_DEFAULT: '2s' } });
    const world = await makeWorld({ api });
    const receiver = await subscribe(world.client.clientId);
    const id = await createEndorsement(world);
    await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');

    const submitted = await waitFor(
      () => attributes(id),
      (a) => a.get(SubmittedAt) !== undefined,
      'the backlog attributes',
    );
    const [policy] = await sql('select insurer_id from policies where id = ?', [world.policy.id]);
    expect(submitted.get(InsurerId)).to.equal(policy.insurer_id);
    const due = submitted.get(SlaDueAt)!.getTime() - submitted.get(SubmittedAt)!.getTime();
    expect(due).to.equal(2_000);
    expect(submitted.get(EndorsementSlaBreached)).to.equal(false);

    const [event] = await waitFor(
      () => Promise.resolve(receiver.events()),
      (e) => e.length >= 1,
      'the sla_breached webhook',
    );
    if (!event) throw new Error('no event');
    expect(event.type).to.equal('endorsement.sla_breached');
    expect(event.data).to.deep.equal({
      endorsement_id: id,
      policy_id: world.policy.id,
      employee_id: world.employee.id,
      insurer_id: policy.insurer_id,
      status: 'ENDORSEMENT_STATUS_SENT_TO_INSURER',
      sla_due_at: submitted.get(SlaDueAt)!.toISOString(),
    });
    expect(receiver.received.every((r) => r.verified)).to.equal(true);
    const breached = await waitFor(
      () => attributes(id),
      (a) => a.get(EndorsementSlaBreached) === true,
      'EndorsementSlaBreached',
    );
    // The first tier (7d) is not reached; the endorsement still waits for the insurer, never rejected.
    expect(breached.get(EndorsementStuck)).to.equal(false);
    expect((await workflowHandle(id).describe()).status.name).to.equal('RUNNING');

    expect(await decide(id, { decision: 'APPROVED', uhid: 'UHID-LATE' })).to.deep.include({
      result: 'accepted',
    });
    const final = await workflowHandle(id).result();
    expect(final.status).to.equal('ENDORSEMENT_STATUS_APPROVED');
    expect((await attributes(id)).get(EndorsementSlaBreached)).to.equal(true);
    const announced = await sql(
      `select count(*)::int as n from webhook_events where type = 'endorsement.sla_breached' and payload->>'endorsement_id' = ?`,
      [id],
    );
    expect(announced[0].n).to.equal(1);
  });

  it('a decision within the SLA announces nothing', async function () {
    this.timeout(60_000);
    const api = await endorsementApi({ config: { ...stack().config, INSURER_SLA_DEFAULT: '3s' } });
    const world = await makeWorld({ api });
    const receiver = await subscribe(world.client.clientId);
    const id = await createEndorsement(world);
    expect(await decide(id, { decision: 'APPROVED' })).to.deep.include({ result: 'accepted' });
    await workflowHandle(id).result();
    await new Promise((r) => setTimeout(r, 3_500));
    expect(receiver.received).to.have.length(0);
    expect((await attributes(id)).get(EndorsementSlaBreached)).to.equal(false);
  });
});
