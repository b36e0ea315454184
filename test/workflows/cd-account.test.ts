import { expect } from 'chai';
import { SystemScope } from '../../data/scope.js';
import { topUpCd, wakeFundedEndorsements } from '../../usecases/cd-account/account.js';
import { AwaitingFunds } from '../../workflows/search-attributes.js';
import { checkCdLedgersAfterEachTest, expectCdLedgersBalanced } from '../support/cd-ledger-check.js';
import { makeClient, makeEmployee, sql } from '../support/factories.js';
import { stack } from '../support/stack.js';
import {
  cdBalance,
  createEndorsement,
  endorsementRow,
  historySteps,
  makeWorld,
  waitFor,
  waitForStatus,
  workflowHandle,
  type World,
} from './endorsement-support.js';

/** A full-year addition on the test policy's first slab costs ₹3,650. */
const PREMIUM = 3650;

const account = async (policyId: string) =>
  (
    await sql(
      `select cd_balance::text as balance, cd_held::text as held, (cd_balance - cd_held)::text as available
         from policies where id = ?`,
      [policyId],
    )
  )[0] as { balance: string; held: string; available: string };

const awaiting = async (id: string) =>
  (await workflowHandle(id).describe()).typedSearchAttributes.get(AwaitingFunds) === true;

/** Waits until the endorsement is with the insurer or waiting for funds; answers which. */
async function settled(id: string): Promise<'sent' | 'waiting'> {
  const row = await waitFor(
    async () => ({ status: (await endorsementRow(id)).status as string, waiting: await awaiting(id) }),
    (r) => r.status === 'ENDORSEMENT_STATUS_SENT_TO_INSURER' || r.waiting,
    `endorsement ${id} past its hold`,
  );
  return row.status === 'ENDORSEMENT_STATUS_SENT_TO_INSURER' ? 'sent' : 'waiting';
}

async function topUp(policyId: string, amount: number, reference: string) {
  const result = await topUpCd(
    SystemScope.of(stack().serviceOrm.em),
    policyId,
    BigInt(amount * 100),
    reference,
  );
  await wakeFundedEndorsements(stack().temporal, result.funded);
  return result;
}

const lowEvents = async (policyId: string) =>
  sql(
    `select payload from webhook_events where type = 'policy.cd_balance_low' and payload->>'policy_id' = ?`,
    [policyId],
  );

/** Each additional employee of the world's client, with their addition. */
async function additions(world: World, n: number): Promise<string[]> {
  const employees = await Promise.all(Array.from({ length: n }, () => makeEmployee(world.client.clientId)));
  return Promise.all(employees.map((e) => createEndorsement(world, { employee_id: e.id })));
}

describe('the CD account', () => {
  checkCdLedgersAfterEachTest();

  it('never overdraws under concurrent additions: the rest wait, and top-ups release them oldest first', async function () {
    this.timeout(60_000);
    // Covers two of five additions (₹7,300 of ₹18,250).
    const world = await makeWorld({ policy: { cdBalance: String(2 * PREMIUM + 100) } });
    const ids = await additions(world, 5);
    const outcomes = await Promise.all(ids.map(settled));
    expect(outcomes.filter((o) => o === 'sent')).to.have.length(2);
    expect(await account(world.policy.id)).to.deep.equal({
      balance: '7400.00',
      held: '7300.00',
      available: '100.00',
    });
    await expectCdLedgersBalanced();

    const waiting = ids.filter((_, i) => outcomes[i] === 'waiting');
    const queue = (
      await sql(`select id from endorsements where id = any(array[?]) order by awaiting_funds_since, id`, [
        waiting,
      ])
    ).map((r) => r.id as string);
    expect(queue).to.have.members(waiting);
    const res = await world.api.get(`/v1/policy/endorsements/${queue[0]}`, { token: world.token });
    expect(res.body.payload.endorsement).to.include({ status: 'ENDORSEMENT_STATUS_PENDING' });
    expect(res.body.payload.endorsement.awaiting_funds_reason).to.contain('available CD balance 100.00');

    // Enough for one more: the oldest waiting goes on by itself, the others keep waiting.
    const first = await topUp(world.policy.id, PREMIUM, 'NEFT-1');
    expect(first.funded).to.deep.equal([queue[0]]);
    await waitForStatus(queue[0]!, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
    expect(await awaiting(queue[0]!)).to.equal(false);
    expect((await endorsementRow(queue[1]!)).status).to.equal('ENDORSEMENT_STATUS_PENDING');

    // The same reference again changes nothing.
    const again = await topUp(world.policy.id, PREMIUM, 'NEFT-1');
    expect(again).to.include({ duplicate: true, cd_balance: '11050.00' });
    expect(again.funded).to.deep.equal([]);

    const rest = await topUp(world.policy.id, 2 * PREMIUM, 'NEFT-2');
    expect(rest.funded).to.deep.equal(queue.slice(1));
    for (const id of queue.slice(1)) await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
    expect(await account(world.policy.id)).to.deep.equal({
      balance: '18350.00',
      held: '18250.00',
      available: '100.00',
    });

    // Held at once: the review, the hold and the routing were one local activity (REVIEW_HOLD_AND_ROUTE).
    const held = await historySteps(ids.find((_, i) => outcomes[i] === 'sent')!);
    expect(held.local[0]).to.equal('reviewHoldAndRoute');
    expect([...held.local, ...held.activities]).to.not.include.members([
      'reviewEndorsement',
      'holdEndorsementFunds',
      'routeAfterReview',
    ]);
    // Short at first: the hold tried again while it waited, then the routing as an activity.
    const funded = await historySteps(queue[0]!);
    expect(funded.local.slice(0, 2)).to.deep.equal(['reviewHoldAndRoute', 'holdEndorsementFunds']);
    expect(funded.activities).to.include('routeAfterReview');
  });

  it('gives a cancelled endorsement its hold back, and debits an approved one from its hold', async () => {
    const world = await makeWorld({ policy: { cdBalance: '10000.00' } });
    const [cancelled, approved] = await additions(world, 2);
    await waitForStatus(cancelled!, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
    await waitForStatus(approved!, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
    expect(await account(world.policy.id)).to.include({ held: '7300.00', available: '2700.00' });

    const res = await world.api.post(`/v1/policy/endorsements/${cancelled}/cancel`, { token: world.token });
    expect(res.status).to.equal(200);
    await waitFor(
      () => account(world.policy.id),
      (a) => a.held === '3650.00',
      'the release',
    );

    await workflowHandle(approved!).executeUpdate('decideEndorsement', { args: [{ decision: 'APPROVED' }] });
    await waitForStatus(approved!, 'ENDORSEMENT_STATUS_APPROVED');
    expect(await account(world.policy.id)).to.deep.equal({
      balance: '6350.00',
      held: '0.00',
      available: '6350.00',
    });
    const kinds = await sql(
      `select endorsement_id, kind, amount::text as amount, held_change::text as held from cd_ledger_entries
        where policy_id = ? and endorsement_id is not null order by seq`,
      [world.policy.id],
    );
    expect(kinds.filter((k) => k.endorsement_id === cancelled).map((k) => [k.kind, k.held])).to.deep.equal([
      ['hold', '3650.00'],
      ['release', '-3650.00'],
    ]);
    expect(
      kinds.filter((k) => k.endorsement_id === approved).map((k) => [k.kind, k.amount, k.held]),
    ).to.deep.equal([
      ['hold', '0.00', '3650.00'],
      ['debit', '-3650.00', '-3650.00'],
    ]);
  });

  it('warns policy.cd_balance_low once per crossing, and again only after a top-up lifted it', async function () {
    this.timeout(60_000);
    // Threshold ₹1,000: two waiting additions do not warn twice.
    const world = await makeWorld({ policy: { cdBalance: '4000.00', cdLowThreshold: '1000.00' } });
    const outcomes = await Promise.all((await additions(world, 3)).map(settled));
    expect(outcomes.sort()).to.deep.equal(['sent', 'waiting', 'waiting']);
    const events = await lowEvents(world.policy.id);
    expect(events).to.have.length(1);
    expect(events[0].payload).to.include({ policy_id: world.policy.id, cd_low_threshold: '1000.00' });

    // A top-up that funds both and leaves ₹4,500 available re-arms; a later hold that crosses warns again.
    await topUp(world.policy.id, 3 * PREMIUM + 500, 'RTGS-1');
    expect(await account(world.policy.id)).to.include({ available: '4500.00' });
    expect(await lowEvents(world.policy.id)).to.have.length(1);
    const [next] = await additions(world, 1);
    await waitForStatus(next!, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
    expect(await lowEvents(world.policy.id)).to.have.length(2);
  });

  it('lists the ledger with running totals, paged (D5), to the owning client only', async () => {
    const world = await makeWorld({ policy: { cdBalance: '10000.00' } });
    const [id] = await additions(world, 1);
    await waitForStatus(id!, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
    await topUp(world.policy.id, 1234.56, 'NEFT-9');
    const url = `/v1/policy/${world.policy.id}/cd-ledger`;
    const first = await world.api.get(`${url}?limit=2`, { token: world.token });
    expect(first.status).to.equal(200);
    expect(first.body.payload).to.include({ total_count: 3, has_next: true, has_previous: false });
    expect(first.body.payload.entries.map((e: any) => [e.kind, e.amount, e.balance, e.held])).to.deep.equal([
      ['adjustment', 10000, 10000, 0],
      ['hold', 3650, 10000, 3650],
    ]);
    expect(first.body.payload.entries[1].endorsement_id).to.equal(id);
    const next = await world.api.get(`${url}?limit=2&start_cursor=${first.body.payload.end_cursor}`, {
      token: world.token,
    });
    expect(next.body.payload.entries).to.have.length(1);
    expect(next.body.payload.entries[0]).to.include({
      kind: 'top_up',
      amount: 1234.56,
      balance: 11234.56,
      reference: 'NEFT-9',
    });
    expect(next.body.payload).to.include({ has_next: false, has_previous: true });

    const policy = await world.api.get(`/v1/policy/${world.policy.id}`, { token: world.token });
    expect(policy.body.payload.policy).to.include({
      cd_balance: 11234.56,
      cd_held: 3650,
      cd_available_balance: 7584.56,
    });

    const other = await makeClient();
    const foreign = await world.api.get(url, { token: other.token() });
    expect(foreign.status).to.equal(404);
    const cursorElsewhere = await world.api.get(`${url}?start_cursor=${first.body.payload.end_cursor}`, {
      token: other.token(),
    });
    expect(cursorElsewhere.status).to.be.oneOf([400, 404]);
    expect(await cdBalance(world.policy.id)).to.equal('11234.56');
  });
});
