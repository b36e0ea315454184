import { expect } from 'chai';
import pg from 'pg';
import { postCdEntryAndFold } from '../../../data/cd-account/account.js';
import { lockPolicyCd } from '../../../data/cd-account/ledger.js';
import { TenantScope } from '../../../data/scope.js';
import { newId } from '../../../domain/ids.js';
import { expectCdLedgersBalanced } from '../../support/cd-ledger-check.js';
import { makeClient, makeEmployee, makeEndorsement, makePolicy, sql } from '../../support/factories.js';
import { stack } from '../../support/stack.js';

const tenant = (clientId: string) => TenantScope.of(stack().serviceOrm.em, clientId);

/**
 * Runs one statement on a connection of its own (so surely another transaction than the test's),
 * giving up on a row lock after `ms` (55P03) instead of waiting. Resolves 'done' or the error code.
 */
async function elsewhere(ms: number, text: string, values: unknown[]): Promise<string> {
  const client = new pg.Client({ connectionString: stack().ownerDatabaseUrl });
  await client.connect();
  try {
    await client.query(`set lock_timeout = '${ms}ms'`);
    await client.query(text, values);
    return 'done';
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  } finally {
    await client.end();
  }
}

describe('data: the CD account lock', () => {
  afterEach('the CD ledgers add up', () => expectCdLedgersBalanced());

  it('lets a new endorsement of the policy in while a decision on its account holds the policy row', async () => {
    const { clientId } = await makeClient();
    const policy = await makePolicy(clientId, { cdBalance: '10000.00' });
    const employee = await makeEmployee(clientId);
    await tenant(clientId).transaction(async (decision) => {
      expect(await lockPolicyCd(decision, policy.id)).to.include({ cd_balance: '10000.00' });
      // A create's insert references the policy (its foreign key's KEY SHARE): it does not wait.
      const insert = await elsewhere(
        2_000,
        `insert into endorsements (id, client_id, policy_id, employee_id, type, status, coverage_start_date,
                                   coverage_end_date, premium_impact, sum_insured)
         values ($1, $2, $3, $4, 'ENDORSEMENT_TYPE_ADDITION', 'ENDORSEMENT_STATUS_PENDING', '2026-04-01',
                 '2027-03-31', 3650, 300000)`,
        [newId('endorsement'), clientId, policy.id, employee.id],
      );
      expect(insert).to.equal('done');
    });
  });

  it("still makes another change to the account wait for the decision's commit", async () => {
    const { clientId } = await makeClient();
    const policy = await makePolicy(clientId, { cdBalance: '10000.00' });
    await tenant(clientId).transaction(async (decision) => {
      await lockPolicyCd(decision, policy.id);
      const posting = await elsewhere(300, 'update policies set cd_held = cd_held + 1 where id = $1', [
        policy.id,
      ]);
      expect(posting).to.equal('55P03');
    });
  });

  it("posts an approval's debit and folds the policy's kept sums in one round trip, the row held until the commit", async () => {
    const { clientId } = await makeClient();
    const policy = await makePolicy(clientId, { cdBalance: '10000.00' });
    // An addition sent to the insurer, its workflow running (so no pass starts one for it): it waits
    // in the policy's kept sums as a change row, not yet folded.
    const id = await makeEndorsement(clientId, policy.id, {
      premium: '3650.00',
      status: 'ENDORSEMENT_STATUS_SENT_TO_INSURER',
      workflowStartedAt: new Date(),
    });
    const debit = {
      policyId: policy.id,
      kind: 'debit' as const,
      endorsementId: id,
      amount: -365_000n,
      held: 0n,
      guarded: false,
      reason: 'ENDORSEMENT_TYPE_ADDITION',
    };
    const kept = (scope: TenantScope) =>
      scope.sql<{ sent_count: number; changes: number }>(
        `select sent_count::int as sent_count,
                (select count(*)::int from policy_tally_changes c where c.policy_id = p.id) as changes
           from policies p where p.id = ?`,
        [policy.id],
      );

    await TenantScope.of(stack().serviceOrm.em.fork(), clientId).transaction(async (approval) => {
      await approval.sql('select 1'); // the transaction begun and told, as an approval's first read leaves it
      // The connection object is shared with the in-process worker: count this transaction's calls alone.
      const connection = approval.em.getConnection();
      const transaction = approval.em.getTransactionContext();
      const execute = connection.execute.bind(connection);
      let trips = 0;
      connection.execute = ((...args: Parameters<typeof execute>) => {
        if (args[3] === transaction) trips++;
        return execute(...args);
      }) as typeof connection.execute;
      try {
        expect(await postCdEntryAndFold(approval, debit)).to.deep.equal({
          cd_balance: '6350.00',
          cd_held: '0.00',
        });
      } finally {
        Reflect.deleteProperty(connection, 'execute'); // the class's own method again
      }
      expect(trips, 'the posting and the fold went to the database together').to.equal(1);
      expect(await kept(approval)).to.deep.equal([{ sent_count: 1, changes: 0 }]);
      // The posting took the policy row: another change to the account waits for this commit.
      expect(
        await elsewhere(300, 'update policies set cd_held = cd_held + 1 where id = $1', [policy.id]),
      ).to.equal('55P03');
    });

    // A retry posts nothing: the totals stay, the ledger holds one debit.
    expect(await postCdEntryAndFold(tenant(clientId), debit)).to.equal(null);
    const [after] = await sql(
      `select p.cd_balance::text as balance,
              (select count(*)::int from cd_ledger_entries x where x.endorsement_id = ?) as entries
         from policies p where p.id = ?`,
      [id, policy.id],
    );
    expect(after).to.deep.equal({ balance: '6350.00', entries: 1 });
  });
});
