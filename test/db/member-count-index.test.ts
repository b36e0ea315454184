import { expect } from 'chai';
import { initOrm, migrate, type Orm } from '../../db/orm.js';
import { dropDatabase, ensureDatabase } from '../../db/databases.js';
import { membersQuery } from '../../data/members.js';
import { pageSql } from '../../data/paging.js';
import { loadBenchDataset, type BenchDataset } from '../../bench/dataset.js';
import { stack } from '../support/stack.js';

/**
 * Migration 0032: a policy's member count (D5's total_count on every page) is read from the narrow
 * policy_members_count index alone, not from the wide keyset index or the table.
 */
describe('the members list count', function () {
  this.timeout(180_000);
  let orm: Orm;
  let name: string;
  let data: BenchDataset;

  before(async () => {
    name = `ghi_test_${stack().runId}_member_count`;
    orm = await initOrm({
      databaseUrl: await ensureDatabase(stack().ownerDatabaseUrl, name),
      poolMax: 2,
      as: 'owner',
    });
    await migrate(orm);
    data = await loadBenchDataset(orm.em.fork(), 2_000, { tag: 'count', members: 5_000 });
    await orm.em.getConnection().execute('vacuum analyze policy_members');
  });
  after(async () => {
    await orm?.close();
    await dropDatabase(stack().ownerDatabaseUrl, name);
  });

  const firstPage = () => {
    const q = membersQuery(data.clientId, data.membersPolicyId, { today: '2026-06-01' });
    const { sql, params } = pageSql(q, null, false, 51);
    return orm.em.getPlatform().formatQuery(sql, params);
  };

  it('counts every member of the policy, dependents and second dependents too', async () => {
    const [row] = await orm.em.getConnection().execute<{ _total: string }[]>(firstPage());
    expect(Number(row!._total)).to.equal(5_000);
  });

  it('reads the count through policy_members_count alone when the table is not scanned', async () => {
    const plan = await orm.em.transactional(async (em) => {
      // Whatever the planner would pick on a table this small, the index paths are what scale.
      await em.getConnection().execute('set local enable_seqscan = off; set local enable_bitmapscan = off');
      const rows = await em.getConnection().execute<{ 'QUERY PLAN': string }[]>(`explain ${firstPage()}`);
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    });
    expect(plan).to.match(/Index Only Scan using policy_members_count on policy_members/);
    // The page's rows still come in key order from the keyset index.
    expect(plan).to.contain('policy_members_page_keyed');
  });
});
