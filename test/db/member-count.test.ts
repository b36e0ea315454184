import { expect } from 'chai';
import { migrate, type Orm } from '../../db/orm.js';
import { membersQuery, type MemberFilter } from '../../data/members.js';
import { TenantScope } from '../../data/scope.js';
import { foldPolicyTallies } from '../../data/policy-tallies.js';
import { pageSql } from '../../data/paging.js';
import { loadBenchDataset, type BenchDataset } from '../../bench/dataset.js';
import { ownDatabase, type OwnSql } from '../support/own-database.js';

/**
 * D5's total_count of a policy's unfiltered members list is the count kept on the policy (migration
 * 0033) plus the changes not yet folded: exact as member rows come and go, without reading them.
 */
describe('the members list count', function () {
  this.timeout(180_000);
  let orm: Orm;
  let drop: () => Promise<void>;
  let data: BenchDataset;
  let sql: OwnSql;

  before(async () => {
    ({ orm, sql, drop } = await ownDatabase('member_count'));
    await migrate(orm);
    data = await loadBenchDataset(orm.em.fork(), 2_000, { tag: 'count', members: 5_000 });
    await sql('vacuum analyze policy_members');
  });
  after(() => drop?.());

  const page = (filter: Partial<MemberFilter> = {}) => {
    const q = membersQuery(data.clientId, data.membersPolicyId, { today: '2026-06-01', ...filter });
    const { sql, params } = pageSql(q, null, false, 51);
    return orm.em.getPlatform().formatQuery(sql, params);
  };
  const total = async (filter: Partial<MemberFilter> = {}) => Number((await sql(page(filter)))[0]!._total);
  const fold = () =>
    orm.em.transactional((em) => foldPolicyTallies(TenantScope.of(em, data.clientId), data.membersPolicyId));

  it('counts every member of the policy, dependents and second dependents too', async () => {
    expect(await total()).to.equal(5_000);
    await fold();
    const [kept] = await sql('select member_count from policies where id = ?', [data.membersPolicyId]);
    expect(Number(kept.member_count)).to.equal(5_000);
    expect(await total()).to.equal(5_000);
  });

  it('stays exact as rows are added, removed and moved, before and after a fold', async () => {
    const [other] = data.policyIds.filter((id) => id !== data.membersPolicyId);
    await sql(
      `insert into policy_members (id, client_id, policy_id, employee_id, coverage_start_date, coverage_end_date,
                                   premium_amount, sum_insured, remaining_sum_insured, status, employee_name, member_rank)
       select 'pm_extra_' || e.id, e.client_id, ?, e.id, date '2026-04-01', date '2027-03-31', 3650, 300000, 300000,
              'inactive', e.name, 0
         from employees e where e.client_id = ? and e.id in (?, ?, ?)`,
      [data.membersPolicyId, data.clientId, ...data.employeeIds.slice(-3)],
    );
    expect(await total()).to.equal(5_003);
    await sql("delete from policy_members where id = 'pm_extra_' || ?", [data.employeeIds.at(-1)]);
    await sql("update policy_members set policy_id = ? where id = 'pm_extra_' || ?", [
      other,
      data.employeeIds.at(-2),
    ]);
    expect(await total()).to.equal(5_001);
    await fold();
    expect(await total()).to.equal(5_001);
    expect(
      await sql('select count(*)::int as n from policy_tally_changes where policy_id = ?', [
        data.membersPolicyId,
      ]),
    ).to.deep.equal([{ n: 0 }]);
  });

  it('reads no member row for the unfiltered count, and counts the rows under a filter', async () => {
    const plan = (await sql(`explain ${page()}`))
      .map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN'])
      .join('\n');
    expect(plan).to.contain('policy_tally_changes');
    // The page's rows come in key order from the keyset index; nothing else reads policy_members.
    expect(plan.match(/on policy_members /g)).to.have.length(1);
    expect(plan).to.contain('policy_members_page_keyed');
    expect(await total({ employeeId: data.employeeIds[0] })).to.be.within(1, 3);
  });
});
