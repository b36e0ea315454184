import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { SystemScope } from '../../../data/scope.js';
import { topUpCd, wakeFundedEndorsements } from '../../../usecases/cd-account/account.js';
import { expectCdLedgersBalanced } from '../../support/cd-ledger-check.js';
import { client as http } from '../../support/http.js';
import { stack } from '../../support/stack.js';
import { kill9, ownTarget, startWorker, stopChildren, type Child, type Target } from './children.js';
import {
  acceptedIds,
  compareWithTemporal,
  postAdditions,
  runFigures,
  seedRun,
  waitAllFinal,
  type RunWorld,
} from './endorsement-run.js';
import { endReconcilers } from './reconcilers.js';
import { report } from './report.js';

/** A full-year addition on the test policy's first slab costs ₹3,650 (checked on every endorsement). */
const PREMIUM_PAISE = 365_000n;

export interface TightBalancePlan {
  endorsements: number;
  /** How many additions the opening balance covers; the rest wait for the top-ups. */
  covered: number;
  /** SIGKILLs while the additions are posted and reviewed. */
  kills: number;
  settleMs: number;
}

const sqlOf =
  (world: RunWorld) =>
  (q: string, params: unknown[] = []) =>
    world.orm.em.getConnection().execute<any[]>(q, params);

/** Bounded wait until every endorsement of the run holds its premium, waits for funds or is final. */
async function waitAllPlaced(world: RunWorld, n: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await sqlOf(world)(
      `select count(*)::int as placed from endorsements e
        where e.client_id = ? and (e.awaiting_funds_since is not null
          or exists (select 1 from cd_ledger_entries l where l.endorsement_id = e.id and l.kind = 'hold'))`,
      [world.client.clientId],
    );
    if (row.placed === n) return;
    if (Date.now() > deadline) throw new Error(`${row.placed} of ${n} endorsements held or waiting`);
    await sleep(500);
  }
}

/** The endorsements waiting for funds, in their queue's order (the order a top-up funds them). */
const queueOf = async (world: RunWorld): Promise<string[]> =>
  (
    await sqlOf(world)(
      `select id from endorsements where client_id = ? and awaiting_funds_since is not null
        order by awaiting_funds_since, id`,
      [world.client.clientId],
    )
  ).map((r) => r.id as string);

async function topUp(world: RunWorld, paise: bigint, reference: string) {
  const result = await topUpCd(SystemScope.of(stack().serviceOrm.em), world.policyId, paise, reference);
  await wakeFundedEndorsements(stack().temporal, result.funded);
  return result;
}

/** A worker that exits right after `activity` commits (before it reports), then a plain one. */
async function crashAfter(target: Target, activity: string): Promise<Child> {
  const crashing = await startWorker(target, { TEST_EXIT_AFTER_COMMIT: activity });
  const exit = await Promise.race([crashing.exited, sleep(120_000).then(() => null)]);
  if (!exit) await kill9(crashing);
  return startWorker(target, WORKER_ENV);
}

const WORKER_ENV = { SIMULATED_INSURER_DELAY_MS: '500' };

/** The CD figures of the run: overdrafts at any entry, each endorsement's entries, the holds' order. */
async function cdFigures(world: RunWorld) {
  const sql = sqlOf(world);
  const [overdrafts] = await sql(
    `select count(*)::int as n from cd_ledger_entries
      where policy_id = ? and (balance_after < 0 or balance_after - held_after < 0)`,
    [world.policyId],
  );
  const perEndorsement = await sql(
    `select e.id, e.premium_impact::text as premium,
            count(*) filter (where l.kind = 'hold')::int as holds,
            count(*) filter (where l.kind = 'debit')::int as debits,
            count(l.id)::int as entries
       from endorsements e left join cd_ledger_entries l on l.endorsement_id = e.id
      where e.client_id = ? group by e.id`,
    [world.client.clientId],
  );
  const holdsInOrder = (
    await sql(
      `select endorsement_id from cd_ledger_entries where policy_id = ? and kind = 'hold' order by seq`,
      [world.policyId],
    )
  ).map((r) => r.endorsement_id as string);
  return { overdrafts: overdrafts.n as number, perEndorsement, holdsInOrder };
}

/**
 * The worker SIGKILL run with a tight CD balance: concurrent additions against a balance that covers
 * `covered` of them, the worker crashing right after a hold commits and SIGKILLed while the rest
 * are posted, then two top-ups (the worker crashing after an approval between them). Pass: no entry
 * of the ledger ever leaves the balance or the available balance below zero, the ledger sums to the
 * balance, each endorsement has exactly one hold and one debit, and the waiting ones were funded in
 * their queue's order, oldest first.
 */
export async function tightBalanceKillRun(plan: TightBalancePlan): Promise<void> {
  const taskQueue = `cd-kill-${stack().runId}`;
  const target = ownTarget(taskQueue);
  const api = http(
    (await stack().startApi({ config: { ...stack().config, TEMPORAL_TASK_QUEUE: taskQueue } })).url,
  );
  const opening = PREMIUM_PAISE * BigInt(plan.covered) + 10_000n;
  const world = await seedRun(plan.endorsements, stack().orm, (Number(opening) / 100).toFixed(2));
  const started = Date.now();
  try {
    const posting = postAdditions(() => api, world, world.employeeIds, {
      concurrency: 8,
      perSecond: 5,
      retryUntil: Date.now() + 600_000,
    });
    // The first hold commits in the review's call (REVIEW_HOLD_AND_ROUTE), with the routing after it.
    let worker = await crashAfter(target, 'reviewHoldAndRoute');
    for (let k = 0; k < plan.kills; k++) {
      await sleep(1500 + Math.floor(Math.random() * 2500));
      await kill9(worker);
      worker = await startWorker(target, WORKER_ENV);
    }
    expect(acceptedIds(await posting), 'every POST accepted').to.have.length(plan.endorsements);
    await waitAllPlaced(world, plan.endorsements, plan.settleMs);

    const queue = await queueOf(world);
    expect(queue, 'the endorsements waiting for funds').to.have.length(plan.endorsements - plan.covered);
    const half = Math.floor(queue.length / 2);
    const first = await topUp(world, PREMIUM_PAISE * BigInt(half), 'NEFT-TIGHT-1');
    expect(first.funded, 'the first top-up funds the oldest').to.deep.equal(queue.slice(0, half));
    await kill9(worker);
    worker = await crashAfter(target, 'applyApproval');
    const again = await topUp(world, PREMIUM_PAISE * BigInt(half), 'NEFT-TIGHT-1');
    expect(again, 'the same reference again').to.include({ duplicate: true });
    const rest = await topUp(world, PREMIUM_PAISE * BigInt(queue.length - half), 'NEFT-TIGHT-2');
    expect(rest.funded, 'the second top-up funds the rest in order').to.deep.equal(queue.slice(half));

    const open = await waitAllFinal(world, plan.settleMs);
    const figures = await runFigures(world);
    const cd = await cdFigures(world);
    const disagreements = await compareWithTemporal(api, world);
    report('worker SIGKILL with a tight CD balance', {
      coveredAtFirst: plan.covered,
      waited: queue.length,
      kills: plan.kills + 2,
      allFinalAfterSeconds: Math.round((Date.now() - started) / 1000),
      overdrafts: cd.overdrafts,
      ...figures,
      disagreements: disagreements.length,
    });

    expect(open, 'endorsements still open').to.equal(0);
    expect(figures.byStatus).to.deep.equal({ ENDORSEMENT_STATUS_APPROVED: plan.endorsements });
    expect(cd.overdrafts, 'ledger entries below zero').to.equal(0);
    expect(figures.balanceDrift, 'the ledger sums to the balance').to.equal('0.00');
    await expectCdLedgersBalanced();
    const wrong = cd.perEndorsement.filter(
      (e) => e.premium !== '3650.00' || e.holds !== 1 || e.debits !== 1 || e.entries !== 2,
    );
    expect(wrong, 'endorsements without exactly one hold and one debit').to.deep.equal([]);
    expect(cd.holdsInOrder.slice(plan.covered), 'the waiting ones funded oldest first').to.deep.equal(queue);
    expect(figures.duplicateMemberRows).to.equal(0);
    expect(disagreements, JSON.stringify(disagreements.slice(0, 5))).to.deep.equal([]);
  } finally {
    await stopChildren();
    await endReconcilers(stack().temporal);
  }
}
