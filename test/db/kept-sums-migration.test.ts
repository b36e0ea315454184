import { expect } from 'chai';
import type { Orm } from '../../db/orm.js';
import { loadBenchDataset, type BenchDataset } from '../../bench/dataset.js';
import { ownDatabase, type OwnSql } from '../support/own-database.js';

/**
 * Migration 0033 on a database with members and endorsements under way: each policy's `cd_pending`
 * starts at the sum the low-balance check used to recount (PENDING additions with a positive premium
 * and no hold), the held ones are marked, `sent_count` at its endorsements waiting for the insurer
 * and `member_count` at its member rows.
 */
describe('migration 0033: the sums kept on the policy, backfilled', function () {
  this.timeout(120_000);
  let orm: Orm;
  let drop: () => Promise<void>;
  let data: BenchDataset;
  let sql: OwnSql;

  before(async () => {
    ({ orm, sql, drop } = await ownDatabase('kept_sums', 1));
    await orm.getMigrator().up({ to: '0032-policy-member-count' });
    data = await loadBenchDataset(orm.em.fork(), 10, { tag: 'pending', members: 10 });
    const [p1, p2] = data.policyIds;
    const rows: [string, string, string][] = [
      [p1!, 'ENDORSEMENT_STATUS_PENDING', '3650.00'], // counted
      [p1!, 'ENDORSEMENT_STATUS_PENDING', '7300.00'], // held below: not counted
      [p1!, 'ENDORSEMENT_STATUS_PENDING', '0.00'],
      [p1!, 'ENDORSEMENT_STATUS_SENT_TO_INSURER', '3650.00'],
      [p2!, 'ENDORSEMENT_STATUS_PENDING', '1200.00'], // counted
      [p2!, 'ENDORSEMENT_STATUS_PENDING', '-500.00'],
    ];
    for (const [i, [policyId, status, premium]] of rows.entries()) {
      await sql(
        `insert into endorsements (id, client_id, policy_id, employee_id, type, status, coverage_start_date,
                                   coverage_end_date, premium_impact, sum_insured)
         values (?, ?, ?, ?, 'ENDORSEMENT_TYPE_ADDITION', ?, '2026-04-01', '2027-03-31', ?, 300000)`,
        [`end_m${i}`, data.clientId, policyId, data.employeeIds[i], status, premium],
      );
    }
    await sql(
      `insert into cd_ledger_entries (id, client_id, policy_id, endorsement_id, kind, amount, held_change,
                                      balance_after, held_after, seq, reason)
       values ('ledger_m1', ?, ?, 'end_m1', 'hold', 0, 7300, 100000000, 7300, 2, 'held at review')`,
      [data.clientId, p1],
    );
    await orm.getMigrator().up();
  });
  after(() => drop?.());

  it("starts each policy's sum at the additions that hold nothing yet", async () => {
    const rows = await sql('select id, cd_pending::text as cd_pending from policies where client_id = ?', [
      data.clientId,
    ]);
    const byId = Object.fromEntries(
      rows.map((r: { id: string; cd_pending: string }) => [r.id, r.cd_pending]),
    );
    expect(byId[data.policyIds[0]!]).to.equal('3650.00');
    expect(byId[data.policyIds[1]!]).to.equal('1200.00');
    expect(byId[data.policyIds[2]!]).to.equal('0.00');
  });

  it("starts each policy's member count at its member rows", async () => {
    const rows = await sql(
      `select p.member_count::int as kept, (select count(*)::int from policy_members m where m.policy_id = p.id) as rows
         from policies p where p.client_id = ? order by p.member_count desc`,
      [data.clientId],
    );
    expect(rows.map((r: { kept: number }) => r.kept)).to.deep.equal(
      rows.map((r: { rows: number }) => r.rows),
    );
    expect(rows[0].kept).to.be.greaterThan(0);
    expect(await sql('select count(*)::int as n from policy_tally_changes')).to.deep.equal([{ n: 0 }]);
  });

  it('marks the held endorsements, and writes no change rows of its own', async () => {
    const held = await sql('select id from endorsements where cd_holding order by id');
    expect(held).to.deep.equal([{ id: 'end_m1' }]);
    expect(await sql('select count(*)::int as n from policy_tally_changes')).to.deep.equal([{ n: 0 }]);
  });
});
