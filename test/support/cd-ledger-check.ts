import { expect } from 'chai';
import { sql } from './factories.js';

/**
 * The CD account's invariants over every policy of the run's database: the ledger sums to the
 * balance and to the held sum, each entry's running totals follow from the ones before it (in
 * posting order), what is held equals the holds neither released nor debited, and no policy's
 * available balance is below zero unless an approval without a hold (a run from before holds)
 * took it there.
 */
export async function expectCdLedgersBalanced(): Promise<void> {
  const drift = await sql(
    `with sums as (
       select policy_id, sum(amount) as amount, sum(held_change) as held from cd_ledger_entries group by policy_id),
     running as (
       select policy_id, seq, balance_after, held_after,
              sum(amount) over (partition by policy_id order by seq) as balance,
              sum(held_change) over (partition by policy_id order by seq) as held
         from cd_ledger_entries),
     open_holds as (
       select h.policy_id, sum(h.held_change) as held from cd_ledger_entries h
        where h.kind = 'hold' and not exists (
          select 1 from cd_ledger_entries x where x.endorsement_id = h.endorsement_id and x.kind in ('release', 'debit'))
        group by h.policy_id)
     select p.id as policy_id, 'balance ' || p.cd_balance || ' but the ledger sums to ' || coalesce(s.amount, 0) as problem
       from policies p left join sums s on s.policy_id = p.id where p.cd_balance <> coalesce(s.amount, 0)
     union all
     select p.id, 'held ' || p.cd_held || ' but the ledger holds ' || coalesce(s.held, 0)
       from policies p left join sums s on s.policy_id = p.id where p.cd_held <> coalesce(s.held, 0)
     union all
     select p.id, 'held ' || p.cd_held || ' but the open holds are ' || coalesce(o.held, 0)
       from policies p left join open_holds o on o.policy_id = p.id where p.cd_held <> coalesce(o.held, 0)
     union all
     select p.id, 'available balance below zero: ' || (p.cd_balance - p.cd_held)
       from policies p where p.cd_balance - p.cd_held < 0 and p.cd_held > 0
     union all
     select policy_id, 'entry ' || seq || ' says ' || balance_after || '/' || held_after || ', the entries before sum to '
            || balance || '/' || held
       from running where balance_after <> balance or held_after <> held
     union all
     select p.id, 'cd_entries ' || p.cd_entries || ' but ' || count(l.id) || ' entries'
       from policies p left join cd_ledger_entries l on l.policy_id = p.id
      group by p.id, p.cd_entries having p.cd_entries <> count(l.id)`,
  );
  expect(drift, 'CD ledgers that do not add up').to.deep.equal([]);
}

/** Hooks the check after each test of the calling file's suite (the endorsement test files). */
export function checkCdLedgersAfterEachTest(): void {
  afterEach('the CD ledgers add up', async () => expectCdLedgersBalanced());
}
