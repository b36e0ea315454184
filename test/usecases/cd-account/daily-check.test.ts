import { expect } from 'chai';
import pg from 'pg';
import { SystemScope } from '../../../data/scope.js';
import { newId } from '../../../domain/ids.js';
import { checkAllCdLow } from '../../../usecases/cd-account/account.js';
import { makeClient, makeEmployee, makePolicy, sql } from '../../support/factories.js';
import { stack } from '../../support/stack.js';

/** The backends waiting for a lock that the backend `pid` holds. */
async function waitingForLocks(conn: pg.Client, pid: number): Promise<number> {
  const { rows } = await conn.query<{ n: string }>(
    'select count(*) as n from pg_stat_activity where $1 = any(pg_blocking_pids(pid))',
    [pid],
  );
  return Number(rows[0]!.n);
}

describe('usecases: the daily CD low-balance pass', () => {
  it('waits for an approval holding the policy row, and both its fold and the approval’s go through', async () => {
    const { clientId } = await makeClient();
    const policy = await makePolicy(clientId, { cdBalance: '100000.00' });
    const employee = await makeEmployee(clientId);
    // A pending addition: its premium reaches the policy's kept sum as a change row, not yet folded.
    await sql(
      `insert into endorsements (id, client_id, policy_id, employee_id, type, status, coverage_start_date,
                                 coverage_end_date, premium_impact, sum_insured)
       values (?, ?, ?, ?, 'ENDORSEMENT_TYPE_ADDITION', 'ENDORSEMENT_STATUS_PENDING', '2026-04-01', '2027-03-31',
               3650, 300000)`,
      [newId('endorsement'), clientId, policy.id, employee.id],
    );
    const changes = async () =>
      Number(
        (await sql('select count(*) as n from policy_tally_changes where policy_id = ?', [policy.id]))[0].n,
      );
    expect(await changes()).to.equal(1);

    // An approval's transaction, as the service runs it: the policy row locked, then (after its
    // posting) the kept sums folded while it still holds the row.
    const approval = new pg.Client({ connectionString: stack().ownerDatabaseUrl });
    await approval.connect();
    try {
      const pid = (await approval.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
      await approval.query('begin');
      await approval.query('select 1 from policies where id = $1 for no key update', [policy.id]);
      const pass = checkAllCdLow(SystemScope.of(stack().serviceOrm.em)).then(
        (r) => r,
        (err: unknown) => err as Error,
      );
      for (let i = 0; i < 100 && (await waitingForLocks(approval, pid)) === 0; i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(await waitingForLocks(approval, pid), 'the pass waits for the policy row').to.be.greaterThan(0);
      // The approval's fold: were the pass holding the change rows while it waits for the policy
      // row, this would wait for the pass and PostgreSQL would end one of them as a deadlock.
      await approval.query(`set lock_timeout = '3s'`);
      await approval.query(
        `with folded as (delete from policy_tally_changes where policy_id = $1 returning cd_pending)
         update policies p set cd_pending = p.cd_pending + (select coalesce(sum(cd_pending), 0) from folded)
          where p.id = $1`,
        [policy.id],
      );
      await approval.query('commit');
      const result = await pass;
      expect(result).not.to.be.instanceOf(Error);
      expect((result as { checked: number }).checked).to.be.greaterThan(0);
    } finally {
      await approval.end();
    }
    expect(await changes()).to.equal(0);
    const [row] = await sql('select cd_pending::text as cd_pending from policies where id = ?', [policy.id]);
    expect(row.cd_pending).to.equal('3650.00');
  });
});
