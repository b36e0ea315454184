import { expect } from 'chai';
import { lockPolicyCd } from '../../../data/cd-account/ledger.js';
import { SystemScope, TenantScope } from '../../../data/scope.js';
import { newId } from '../../../domain/ids.js';
import { holdEndorsementFunds } from '../../../usecases/cd-account/account.js';
import { expectCdLedgersBalanced } from '../../support/cd-ledger-check.js';
import { makeClient, makeEndorsement, makePolicy, sql } from '../../support/factories.js';
import { stack } from '../../support/stack.js';

const system = () => SystemScope.of(stack().serviceOrm.em.fork());

/** A PENDING endorsement of the policy costing `premium` rupees, as a create leaves it. */
const pendingEndorsement = (clientId: string, policyId: string, premium: string): Promise<string> =>
  makeEndorsement(clientId, policyId, {
    type: premium.startsWith('-') ? 'ENDORSEMENT_TYPE_DELETION' : 'ENDORSEMENT_TYPE_ADDITION',
    premium,
  });

const account = async (policyId: string) =>
  (
    await sql('select cd_balance::text as balance, cd_held::text as held from policies where id = ?', [
      policyId,
    ])
  )[0];

const awaitingSince = async (id: string): Promise<string | null> =>
  (await sql('select awaiting_funds_since::text as t from endorsements where id = ?', [id]))[0].t;

describe('usecases: the CD hold at review', () => {
  afterEach('the CD ledgers add up', () => expectCdLedgersBalanced());

  it('holds the policy row for the database’s time alone: the whole hold waits as one message, then goes on', async () => {
    const { clientId } = await makeClient();
    const policy = await makePolicy(clientId, { cdBalance: '10000.00' });
    const id = await pendingEndorsement(clientId, policy.id, '3650.00');

    // Started outside the decision's async context (inside it, MikroORM would join its transaction).
    let locked!: () => void;
    const hold = new Promise<void>((resolve) => (locked = resolve)).then(() =>
      holdEndorsementFunds(system(), id),
    );
    // The hold names the policy (its lock) or the endorsement (a lock of the endorsement and policy).
    const ours = (w: { query: string }) => w.query.includes(policy.id) || w.query.includes(id);
    let waiting: { query: string }[] = [];
    await TenantScope.of(stack().serviceOrm.em.fork(), clientId).transaction(async (decision) => {
      const [me] = await decision.sql<{ pid: number }>('select pg_backend_pid() as pid');
      await lockPolicyCd(decision, policy.id);
      locked();
      const deadline = Date.now() + 10_000;
      while (waiting.length === 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
        const blocked: { query: string }[] = await sql(
          'select query from pg_stat_activity where ? = any(pg_blocking_pids(pid))',
          [me!.pid],
        );
        waiting = blocked.filter(ours);
      }
    });
    // What waited on the policy row was the hold whole: the lock and the posting after it in one
    // message, each by its prepared name (the fold and the check follow; pg_stat_activity shows a
    // message's first kilobyte), so once it has the row it needs no round trip to the worker before
    // letting go of it.
    expect(waiting).to.have.length(1);
    expect(waiting[0]!.query).to.match(/execute policy_cd_lock\('[^']+', '[^']+'\);\s*execute cd_posting\(/);
    expect(await hold).to.deep.equal({ kind: 'held', deliveries: [] });
    expect(await account(policy.id)).to.deep.equal({ balance: '10000.00', held: '3650.00' });
  });

  it('marks a short one waiting with the balance it saw, keeps its place on a retry, and counts a hold placed meanwhile', async () => {
    const { clientId } = await makeClient();
    const policy = await makePolicy(clientId, { cdBalance: '5000.00' });
    const first = await pendingEndorsement(clientId, policy.id, '3650.00');
    const second = await pendingEndorsement(clientId, policy.id, '3650.00');

    expect(await holdEndorsementFunds(system(), first)).to.deep.equal({ kind: 'held', deliveries: [] });
    const short = await holdEndorsementFunds(system(), second);
    expect(short).to.deep.include({ kind: 'waiting' });
    expect((short as { reason: string }).reason).to.equal(
      "Waiting for funds: the policy's available CD balance 1350.00 does not cover the premium 3650.00; " +
        'it goes on when a top-up covers it (oldest first)',
    );
    const since = await awaitingSince(second);
    expect(since).to.be.a('string');

    // A retry (the activity again) posts nothing and keeps the first instant: its place in the queue.
    expect(await holdEndorsementFunds(system(), second)).to.deep.include({ kind: 'waiting' });
    expect(await awaitingSince(second)).to.equal(since);
    expect(await holdEndorsementFunds(system(), first)).to.deep.equal({ kind: 'held', deliveries: [] });
    expect(await account(policy.id)).to.deep.equal({ balance: '5000.00', held: '3650.00' });

    // A top-up's funding placed the hold meanwhile (its posting, the mark left for the review): held.
    await sql(
      `update policies set cd_balance = cd_balance + 5000, cd_held = cd_held + 3650, cd_entries = cd_entries + 2
        where id = ?`,
      [policy.id],
    );
    await sql(
      `insert into cd_ledger_entries (id, client_id, policy_id, endorsement_id, kind, amount, held_change,
                                      balance_after, held_after, reference, seq, reason)
       values (?, ?, ?, null, 'top_up', 5000, 0, 10000, 3650, 'NEFT-1', 3, 'top-up'),
              (?, ?, ?, ?, 'hold', 0, 3650, 10000, 7300, null, 4, 'held at top-up')`,
      [newId('ledger'), clientId, policy.id, newId('ledger'), clientId, policy.id, second],
    );
    expect(await holdEndorsementFunds(system(), second)).to.deep.equal({ kind: 'held', deliveries: [] });
    expect(await awaitingSince(second)).to.equal(null);
    expect(await account(policy.id)).to.deep.equal({ balance: '10000.00', held: '7300.00' });
  });

  it('holds nothing for a refund, answers held, and says gone for an unknown endorsement', async () => {
    const { clientId } = await makeClient();
    const policy = await makePolicy(clientId, { cdBalance: '1000.00' });
    const refund = await pendingEndorsement(clientId, policy.id, '-1825.00');
    expect(await holdEndorsementFunds(system(), refund)).to.deep.equal({ kind: 'held', deliveries: [] });
    expect(await awaitingSince(refund)).to.equal(null);
    expect(await account(policy.id)).to.deep.equal({ balance: '1000.00', held: '0.00' });
    expect(await holdEndorsementFunds(system(), newId('endorsement'))).to.deep.equal({ kind: 'gone' });
  });
});
