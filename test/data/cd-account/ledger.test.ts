import { expect } from 'chai';
import pg from 'pg';
import { lockPolicyCd } from '../../../data/cd-account/ledger.js';
import { TenantScope } from '../../../data/scope.js';
import { newId } from '../../../domain/ids.js';
import { makeClient, makeEmployee, makePolicy } from '../../support/factories.js';
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
});
