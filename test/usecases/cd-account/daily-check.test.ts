import { expect } from 'chai';
import { lockPolicyCd } from '../../../data/cd-account/ledger.js';
import { foldPolicyTallies } from '../../../data/policy-tallies.js';
import { SystemScope, TenantScope } from '../../../data/scope.js';
import { checkAllCdLow } from '../../../usecases/cd-account/account.js';
import { makeClient, makeEndorsement, makePolicy, sql } from '../../support/factories.js';
import { stack } from '../../support/stack.js';

/** How many backends wait for a lock that the backend `pid` holds (read on a connection of its own). */
async function blockedBy(pid: number): Promise<number> {
  const [row] = await sql('select count(*) as n from pg_stat_activity where ? = any(pg_blocking_pids(pid))', [
    pid,
  ]);
  return Number(row.n);
}

describe('usecases: the daily CD low-balance pass', () => {
  it('waits for an approval holding the policy row, and both its fold and the approval’s go through', async function () {
    // The pass goes through every policy in the database, in the suite thousands of other tests'.
    this.timeout(90_000);
    const { clientId } = await makeClient();
    const policy = await makePolicy(clientId, { cdBalance: '100000.00' });
    // A pending addition: its premium reaches the policy's kept sum as a change row, not yet folded.
    await makeEndorsement(clientId, policy.id, { premium: '3650.00' });
    const changes = async () =>
      Number(
        (await sql('select count(*) as n from policy_tally_changes where policy_id = ?', [policy.id]))[0].n,
      );
    expect(await changes()).to.equal(1);

    // An approval's transaction, as the service runs it: the policy row locked (lockPolicyCd), then
    // (after its posting) the kept sums folded (foldPolicyTallies) while it still holds the row.
    // The pass starts once the row is locked, from outside the approval's async context (started
    // inside it, MikroORM would run it in the approval's own transaction).
    let locked!: () => void;
    let settled = false;
    const pass = new Promise<void>((resolve) => (locked = resolve))
      .then(() => checkAllCdLow(SystemScope.of(stack().serviceOrm.em.fork())))
      .catch((err: unknown) => err as Error)
      .finally(() => (settled = true));
    await TenantScope.of(stack().serviceOrm.em.fork(), clientId).transaction(async (approval) => {
      const [row] = await approval.sql<{ pid: number }>('select pg_backend_pid() as pid');
      const pid = row!.pid;
      await lockPolicyCd(approval, policy.id);
      locked();
      // The pass checks every client's policies one after another (the whole suite's, when it runs
      // in the suite), so it reaches this one when it does: until then, or until it ends without
      // waiting (which fails below).
      const deadline = Date.now() + 45_000;
      while (!settled && Date.now() < deadline && (await blockedBy(pid)) === 0)
        await new Promise((r) => setTimeout(r, 20));
      expect(await blockedBy(pid), 'the pass waits for the policy row').to.be.greaterThan(0);
      // Were the pass holding the change rows while it waits for the policy row, this fold would
      // wait for the pass and PostgreSQL would end one of them as a deadlock.
      await foldPolicyTallies(approval, policy.id);
    });
    const result = await pass;
    expect(result).not.to.be.instanceOf(Error);
    expect((result as { checked: number }).checked).to.be.greaterThan(0);
    expect(await changes()).to.equal(0);
    const [row] = await sql('select cd_pending::text as cd_pending from policies where id = ?', [policy.id]);
    expect(row.cd_pending).to.equal('3650.00');
  });
});
