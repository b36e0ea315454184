import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { stackActivities } from '../support/activities.js';
import {
  addWebhook,
  listWebhooks,
  removeWebhook,
  resealWebhookSecrets,
} from '../../usecases/webhooks/endpoints.js';
import { outboxSql } from '../../data/webhooks/outbox.js';
import { TenantScope } from '../../data/scope.js';
import { webhookWorkflowId } from '../../workflows/webhook/contract.js';
import { sql } from '../support/factories.js';
import { deletePeriodicSchedules, triggerPass } from '../support/schedules.js';
import { stack, TEST_KEYS } from '../support/stack.js';
import { startReceiver, type Answer, type Receiver, type Received } from '../support/webhook-receiver.js';
import { createEndorsement, decide, makeWorld, waitFor, waitForStatus } from './endorsement-support.js';
import { grant, grantWorld, waitForEndorsements, waitForGrant } from './grant-support.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const PENDING = 'ENDORSEMENT_STATUS_PENDING';
const SENT = 'ENDORSEMENT_STATUS_SENT_TO_INSURER';
const APPROVED = 'ENDORSEMENT_STATUS_APPROVED';
const REJECTED = 'ENDORSEMENT_STATUS_REJECTED';

/** `npm run -s admin -- …` as an operator runs it, against this run's database. */
async function admin(env: Record<string, string>, ...args: string[]): Promise<any> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', 'scripts/admin.ts', ...args, '--json'],
    { cwd: ROOT, env: { ...process.env, ...TEST_KEYS, ...stack().databaseEnv, ...env } },
  );
  return JSON.parse(stdout);
}

const activities = stackActivities;

/** A receiver registered for the client (every event type). */
async function subscribe(
  clientId: string,
  answer?: (e: Received, n: number) => Answer,
): Promise<Receiver & { webhookId: string }> {
  const receiver = await startReceiver(answer);
  const added = await addWebhook(stack().orm.em, stack().config, { clientId, url: receiver.url });
  receiver.secret = added.secret;
  return Object.assign(receiver, { webhookId: added.webhook_id });
}

const eventsOf = (receiver: Receiver, endorsementId: string) =>
  receiver.events().filter((e) => e.data.endorsement_id === endorsementId);

const transitions = (events: Received['event'][]) =>
  events.map((e) => [e.data.old_status, e.data.new_status]);

async function deliveriesOf(clientId: string): Promise<Record<string, any>[]> {
  return sql(
    `select d.id, d.status, d.attempts, d.last_status_code, e.payload from webhook_deliveries d
       join webhook_events e on e.id = d.event_id where d.client_id = ? order by d.created_at`,
    [clientId],
  );
}

describe('webhooks', function () {
  this.timeout(40_000);
  const receivers: Receiver[] = [];
  let saved: Record<string, unknown> = {};

  before(() => {
    const { WEBHOOK_ALLOW_PRIVATE, WEBHOOK_RETRY_INITIAL_MS, WEBHOOK_RETRY_MAX_MS } = stack().config;
    saved = { WEBHOOK_ALLOW_PRIVATE, WEBHOOK_RETRY_INITIAL_MS, WEBHOOK_RETRY_MAX_MS };
    // Loopback receivers need the flag (its default is off in tests); retries in tenths of a second.
    Object.assign(stack().config, {
      WEBHOOK_ALLOW_PRIVATE: true,
      WEBHOOK_RETRY_INITIAL_MS: 100,
      WEBHOOK_RETRY_MAX_MS: 400,
    });
  });
  after(async () => {
    Object.assign(stack().config, saved);
    await Promise.all(receivers.map((r) => r.close()));
  });

  it('a receiver sees every transition of an endorsement once after dedupe, each signed; ids and statuses only', async () => {
    const world = await makeWorld();
    const receiver = await startReceiver();
    receivers.push(receiver);
    const env = { WEBHOOK_ALLOW_PRIVATE: 'true' };
    const added = await admin(env, 'webhook:add', world.client.clientId, receiver.url);
    expect(added).to.include({ client_id: world.client.clientId, url: receiver.url });
    expect(added.webhook_id).to.match(/^whk_/);
    expect(added.secret).to.match(/^whsec_/);
    expect(added.events).to.deep.equal([
      'endorsement.status_changed',
      'grant.status_changed',
      'endorsement.sla_breached',
      'policy.cd_balance_low',
      'policy.reconciliation_completed',
      'endorsement_batch.completed',
      'policy.renewal_drafted',
      'policy.renewal_confirmed',
      'policy.renewal_declined',
      'policy.renewed',
      'policy.expired',
      'employee.exit_overdue',
    ]);
    receiver.secret = added.secret;
    const listed = await listWebhooks(stack().orm.em, world.client.clientId);
    expect(listed.webhooks).to.deep.equal([
      { webhook_id: added.webhook_id, url: receiver.url, events: added.events, created_at: added.created_at },
    ]);
    // Another endpoint of the client that only wants grant events hears nothing of endorsements.
    const grantsOnly = await startReceiver();
    receivers.push(grantsOnly);
    await addWebhook(stack().orm.em, stack().config, {
      clientId: world.client.clientId,
      url: grantsOnly.url,
      events: 'grant.status_changed',
    });

    const id = await createEndorsement(world);
    await waitForStatus(id, SENT);
    await decide(id, { decision: 'APPROVED', insurer_member_id: 'INS-1', uhid: 'UHID-1' });
    await waitForStatus(id, APPROVED);
    const events = await waitFor(
      () => Promise.resolve(eventsOf(receiver, id)),
      (e) => e.length >= 3,
      'three events',
    );

    expect(transitions(events)).to.have.deep.members([
      [null, PENDING],
      [PENDING, SENT],
      [SENT, APPROVED],
    ]);
    expect(events).to.have.length(3);
    for (const r of receiver.received) {
      expect(r.verified, r.body).to.equal(true);
      expect(r.id).to.equal(r.event.id);
      expect(r.signature).to.match(/^t=\d+,v1=[0-9a-f]{64}$/);
    }
    for (const e of events) {
      expect(e.id).to.match(/^evt_/);
      expect(e.type).to.equal('endorsement.status_changed');
      expect(new Date(e.created_at).toISOString()).to.equal(e.created_at);
      expect(e.data).to.have.all.keys(
        'endorsement_id',
        'policy_id',
        'employee_id',
        'old_status',
        'new_status',
      );
      expect(e.data).to.include({
        endorsement_id: id,
        policy_id: world.policy.id,
        employee_id: world.employee.id,
      });
    }
    const bodies = receiver.received.map((r) => r.body).join('\n');
    for (const personal of [world.employee.name, world.employee.employeeCode]) {
      expect(bodies).to.not.contain(personal);
    }
    expect(grantsOnly.received).to.have.length(0);
    const deliveries = await waitFor(
      () => deliveriesOf(world.client.clientId),
      (rows) => rows.every((d) => d.status === 'delivered'),
      'deliveries recorded as delivered',
    );
    expect(deliveries).to.have.length(3);
    for (const d of deliveries) expect(d).to.include({ attempts: 1, last_status_code: 200 });
  });

  it('keeps signing secrets sealed at rest and goes on signing across a key rotation and a reseal', async () => {
    const world = await makeWorld();
    const receiver = await subscribe(world.client.clientId);
    receivers.push(receiver);
    const stored = async () =>
      String(
        (await sql('select secret from webhook_endpoints where id = ?', [receiver.webhookId]))[0].secret,
      );
    const original = stack().config.WEBHOOK_SECRET_KEYS!;
    const sealedFirst = await stored();
    expect(sealedFirst).to.match(new RegExp(`^enc:v1:${original[0]!.kid}:`));
    expect(sealedFirst).to.not.contain(receiver.secret);

    // A new key goes first; old secrets still open, and the reseal moves them under the new key.
    const next = { kid: 'rotated', key: randomBytes(32) };
    stack().config.WEBHOOK_SECRET_KEYS = [next, ...original];
    try {
      const before = await createEndorsement(world);
      await waitFor(
        () => Promise.resolve(eventsOf(receiver, before)),
        (e) => e.length >= 1,
        'an event signed with the secret sealed under the old key',
      );
      // Every endpoint of the run (other tests' too) was sealed under the old key.
      const [{ older }] = await sql(
        "select count(*)::int as older from webhook_endpoints where secret not like 'enc:v1:rotated:%'",
      );
      expect(older).to.be.greaterThan(0);
      expect(await resealWebhookSecrets(stack().orm.em.fork(), stack().config)).to.deep.include({
        key_id: 'rotated',
        resealed: older,
      });
      expect(await stored()).to.match(/^enc:v1:rotated:/);
      expect((await resealWebhookSecrets(stack().orm.em.fork(), stack().config)).resealed).to.equal(0);

      stack().config.WEBHOOK_SECRET_KEYS = [next];
      await world.api.post(`/v1/policy/endorsements/${before}/cancel`, { token: world.token });
      await waitFor(
        () => Promise.resolve(eventsOf(receiver, before)),
        (e) => e.some((x) => x.data.new_status === 'ENDORSEMENT_STATUS_CANCELLED'),
        'an event signed with the resealed secret, the old key gone',
      );
      // Every event the receiver took was verified against the secret issued at webhook:add.
      expect(receiver.received.length).to.be.greaterThan(1);
      expect(receiver.received.filter((r) => !r.verified)).to.deep.equal([]);
    } finally {
      stack().config.WEBHOOK_SECRET_KEYS = original;
    }
  });

  it('a rejection carries its reason; a retried status-writing activity records no second event', async () => {
    const world = await makeWorld();
    const receiver = await subscribe(world.client.clientId);
    receivers.push(receiver);
    const id = await createEndorsement(world);
    await waitForStatus(id, SENT);
    await decide(id, { decision: 'REJECTED', rejection_reason: 'Pre-existing condition exclusion' });
    await waitForStatus(id, REJECTED);
    const events = await waitFor(
      () => Promise.resolve(eventsOf(receiver, id)),
      (e) => e.length >= 3,
      'three events',
    );
    const rejected = events.find((e) => e.data.new_status === REJECTED)!;
    expect(rejected.data).to.deep.equal({
      endorsement_id: id,
      policy_id: world.policy.id,
      employee_id: world.employee.id,
      old_status: SENT,
      new_status: REJECTED,
      rejection_reason: 'Pre-existing condition exclusion',
    });

    // Temporal retries an activity whose result it did not get: the same writes again.
    const a = activities();
    await a.reviewEndorsement(id);
    await a.markSentToInsurer(id).catch(() => undefined);
    await a.rejectEndorsement(id, 'Pre-existing condition exclusion');
    const stored = await sql('select type, payload from webhook_events where client_id = ?', [
      world.client.clientId,
    ]);
    expect(stored.map((e) => [e.payload.old_status, e.payload.new_status])).to.have.deep.members([
      [null, PENDING],
      [PENDING, SENT],
      [SENT, REJECTED],
    ]);
    expect(await deliveriesOf(world.client.clientId)).to.have.length(3);
  });

  it('a receiver that fails three times then succeeds gets the event; every attempt is recorded for the admin command', async () => {
    const world = await makeWorld();
    const receiver = await subscribe(world.client.clientId, (_e, n) => (n <= 3 ? 500 : 204));
    receivers.push(receiver);
    const id = await createEndorsement(world);
    const created = await waitFor(
      () =>
        Promise.resolve(
          receiver.received.filter(
            (r) => r.event.data.endorsement_id === id && r.event.data.new_status === PENDING,
          ),
        ),
      (got) => got.length >= 4,
      'the fourth attempt',
    );
    expect(new Set(created.map((r) => r.id)).size).to.equal(1);
    expect(created.every((r) => r.verified)).to.equal(true);
    expect(created.map((r) => r.body)).to.deep.equal(Array(4).fill(created[0]!.body));

    const eventId = created[0]!.id;
    await waitFor(
      () => sql('select status from webhook_deliveries where event_id = ?', [eventId]),
      (rows) => rows[0]?.status === 'delivered',
      'the delivery to be recorded as delivered',
    );
    const { deliveries } = await admin({}, 'webhook:deliveries', world.client.clientId, '--event', eventId);
    expect(deliveries).to.have.length(1);
    const [d] = deliveries;
    expect(d).to.include({
      event_id: eventId,
      event_type: 'endorsement.status_changed',
      status: 'delivered',
      attempts: 4,
    });
    expect(d).to.include({ last_status_code: 204, last_error: null, next_attempt_at: null });
    expect(d.delivered_at).to.be.a('string');
    expect(d.attempt_log.map((a: any) => [a.attempt, a.status_code, a.error])).to.deep.equal([
      [1, 500, 'HTTP 500'],
      [2, 500, 'HTTP 500'],
      [3, 500, 'HTTP 500'],
      [4, 204, null],
    ]);
    for (const a of d.attempt_log) expect(a.latency_ms).to.be.a('number').and.at.least(0);
  });

  it('a receiver that never answers does not hold up the approval; removing the endpoint cancels its deliveries', async () => {
    const world = await makeWorld();
    const receiver = await subscribe(world.client.clientId, () => 'hang');
    receivers.push(receiver);
    const id = await createEndorsement(world);
    await waitForStatus(id, SENT);
    // Both earlier events' POSTs are being held by the receiver while the insurer decides.
    await waitFor(
      () => Promise.resolve(receiver.open()),
      (n) => n >= 2,
      'two held requests',
    );
    await decide(id, { decision: 'APPROVED' });
    await waitForStatus(id, APPROVED);
    expect(receiver.open()).to.be.at.least(2);
    const deliveries = await deliveriesOf(world.client.clientId);
    expect(deliveries.map((d) => d.status)).to.deep.equal(['pending', 'pending', 'pending']);

    const removed = await removeWebhook(stack().orm.em, receiver.webhookId);
    expect(removed).to.include({ removed: true, cancelled_deliveries: 3 });
    await receiver.close();
    for (const d of deliveries) {
      expect(await stack().temporal.workflow.getHandle(webhookWorkflowId(d.id)).result()).to.equal(
        'cancelled',
      );
    }
    const [endpoint] = await sql('select active, secret from webhook_endpoints where client_id = ?', [
      world.client.clientId,
    ]);
    expect(endpoint).to.deep.equal({ active: false, secret: null });
  });

  it('checks the address again at delivery: without the flag a loopback receiver gets nothing until it is allowed', async () => {
    const world = await makeWorld();
    const receiver = await subscribe(world.client.clientId);
    receivers.push(receiver);
    stack().config.WEBHOOK_ALLOW_PRIVATE = false;
    try {
      await createEndorsement(world);
      const [refused] = await waitFor(
        () =>
          sql('select attempts, last_error, status from webhook_deliveries where client_id = ?', [
            world.client.clientId,
          ]),
        (rows) => rows[0]?.attempts >= 2,
        'two refused attempts',
      );
      expect(refused.status).to.equal('pending');
      expect(refused.last_error).to.match(/^refused: 127\.0\.0\.1 resolves to a loopback address/);
      expect(receiver.received).to.have.length(0);
    } finally {
      stack().config.WEBHOOK_ALLOW_PRIVATE = true;
    }
    await waitFor(
      () => Promise.resolve(receiver.received.length),
      (n) => n >= 1,
      'delivery once allowed',
    );
    expect(receiver.received[0]!.verified).to.equal(true);
  });

  it('a grant sends its own transitions, and its child endorsement sends its own', async () => {
    const w = await grantWorld({ a: {} });
    const receiver = await subscribe(w.clientId);
    receivers.push(receiver);
    const id = await grant(w);
    const g = await waitForEndorsements(w, id, SENT, 1);
    const endorsementId = g.endorsements[0].endorsement_id as string;
    await decide(endorsementId, { decision: 'APPROVED' });
    await waitForGrant(w, id, (x) => x.status === 'GRANT_STATUS_COMPLETED', 'completed');
    const events = await waitFor(
      () => Promise.resolve(receiver.events()),
      (e) => e.length >= 6,
      'three grant and three endorsement events',
    );
    const grants = events.filter((e) => e.type === 'grant.status_changed');
    expect(grants.map((e) => e.data)).to.have.deep.members([
      {
        request_id: id,
        employee_id: w.employee.id,
        policy_id: null,
        old_status: null,
        new_status: 'GRANT_STATUS_PENDING',
      },
      {
        request_id: id,
        employee_id: w.employee.id,
        policy_id: null,
        old_status: 'GRANT_STATUS_PENDING',
        new_status: 'GRANT_STATUS_IN_PROGRESS',
      },
      {
        request_id: id,
        employee_id: w.employee.id,
        policy_id: null,
        old_status: 'GRANT_STATUS_IN_PROGRESS',
        new_status: 'GRANT_STATUS_COMPLETED',
      },
    ]);
    expect(transitions(eventsOf(receiver, endorsementId))).to.have.deep.members([
      [null, PENDING],
      [PENDING, SENT],
      [SENT, APPROVED],
    ]);
    expect(events).to.have.length(6);
    expect(receiver.received.every((r) => r.verified)).to.equal(true);
  });

  it('the sweeper starts deliveries whose start was lost after the commit', async () => {
    const world = await makeWorld();
    const receiver = await subscribe(world.client.clientId);
    receivers.push(receiver);
    // The outbox write of a change whose activity died before starting the delivery: the outbox's
    // statement as every status change appends it, here for a change of its own.
    const outbox = outboxSql('change', 'endorsement.status_changed');
    const data = { endorsement_id: 'end_sweeper_test', old_status: null, new_status: PENDING };
    const [{ id: deliveryId } = { id: '' }] = await TenantScope.of(
      stack().orm.em,
      world.client.clientId,
    ).sql<{ id: string }>(
      `with change as (select ?::text as client_id, ?::text as entity_id, ?::text as to_status, ?::jsonb as data),
       ${outbox.sql}
       select id from outbox_deliveries`,
      [world.client.clientId, 'end_sweeper_test', PENDING, JSON.stringify(data), ...outbox.params],
    );
    expect(deliveryId).to.match(/^dlv_/);
    // A run of the sweeper's Schedule, on this run's queue (the Schedule is namespace-wide: a worker
    // process of another test may have pointed it at its own queue).
    await triggerPass(stack().temporal, stack().taskQueue, 'webhook-sweeper');
    try {
      await waitFor(
        () => Promise.resolve(receiver.events()),
        (e) => e.length === 1,
        'the swept delivery',
      );
      expect(receiver.events()[0]!.data).to.deep.equal({
        endorsement_id: 'end_sweeper_test',
        old_status: null,
        new_status: PENDING,
      });
    } finally {
      await deletePeriodicSchedules(stack().temporal);
    }
  });
});
