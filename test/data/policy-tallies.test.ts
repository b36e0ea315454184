import { expect } from 'chai';
import { checkCdLow } from '../../data/cd-account/account.js';
import { KEPT_SENT_COUNT_SQL } from '../../data/policy-tallies.js';
import { postCdEntry } from '../../data/cd-account/ledger.js';
import { TenantScope } from '../../data/scope.js';
import { newId } from '../../domain/ids.js';
import { toPaise } from '../../domain/premium.js';
import { makeClient, makeEmployee, makePolicy } from '../support/factories.js';
import { stack } from '../support/stack.js';

const tenant = (clientId: string) => TenantScope.of(stack().serviceOrm.em, clientId);

/**
 * The sums kept on the policy (migration 0033, data/policy-tallies.ts): after any mix of the writes
 * the service makes (creates one at a time and many in one statement, holds, status changes, a
 * premium change, a discarded create), the CD check's `cd_pending` equals the sum it replaced,
 * recounted from the endorsements and the ledger, and the insurer's backlog total equals its
 * waiting rows. (The members count: test/db/member-count.test.ts.)
 */
describe('data: the sums kept on the policy', () => {
  let clientId: string;
  let policyId: string;
  let insurerId: string;

  const recounted = async (): Promise<string> => {
    const [row] = await tenant(clientId).sql<{ total: string }>(
      `select coalesce(sum(e.premium_impact), 0)::numeric(14,2)::text as total from endorsements e
        where e.policy_id = ? and e.status = 'ENDORSEMENT_STATUS_PENDING' and e.premium_impact > 0
          and not exists (select 1 from cd_ledger_entries h where h.endorsement_id = e.id and h.kind = 'hold')`,
      [policyId],
    );
    return row!.total;
  };
  const kept = async (): Promise<{ cd_pending: string; changes: number }> => {
    const [row] = await tenant(clientId).sql<{ cd_pending: string; changes: number }>(
      `select cd_pending::text as cd_pending,
              (select count(*)::int from policy_tally_changes c where c.policy_id = p.id) as changes
         from policies p where p.id = ?`,
      [policyId],
    );
    return row!;
  };
  const checked = async (): Promise<{ cd_pending: string; changes: number }> => {
    await tenant(clientId).transaction((tx) => checkCdLow(tx, policyId));
    return kept();
  };
  const endorsementValues = async (premium: string, status = 'ENDORSEMENT_STATUS_PENDING') => {
    const employee = await makeEmployee(clientId);
    return [newId('endorsement'), clientId, policyId, employee.id, status, premium];
  };
  const insert = async (...rows: unknown[][]) => {
    await tenant(clientId).sql(
      `insert into endorsements (id, client_id, policy_id, employee_id, type, status, coverage_start_date,
                                 coverage_end_date, premium_impact, sum_insured)
       values ${rows.map(() => "(?, ?, ?, ?, 'ENDORSEMENT_TYPE_ADDITION', ?, '2026-04-01', '2027-03-31', ?, 300000)").join(', ')}`,
      rows.flat(),
    );
    return rows.map((r) => r[0] as string);
  };
  const hold = (endorsementId: string, premium: string) =>
    postCdEntry(tenant(clientId), {
      policyId,
      kind: 'hold',
      endorsementId,
      amount: 0n,
      held: toPaise(premium),
      guarded: true,
      reason: 'held at review',
    });
  const update = (id: string, set: string, params: unknown[] = []) =>
    tenant(clientId).sql(`update endorsements set ${set} where id = ?`, [...params, id]);

  beforeEach(async () => {
    ({ clientId } = await makeClient());
    ({ id: policyId, insurerId } = await makePolicy(clientId, { cdBalance: '100000.00' }));
  });

  it('counts a create at once, and many created by one statement, at the next check', async () => {
    await insert(await endorsementValues('3650.00'));
    expect(await kept()).to.deep.equal({ cd_pending: '0.00', changes: 1 });
    await insert(
      await endorsementValues('7300.00'),
      await endorsementValues('0.00'),
      await endorsementValues('-1200.00'),
      await endorsementValues('500.00', 'ENDORSEMENT_STATUS_SENT_TO_INSURER'),
    );
    expect(await checked()).to.deep.equal({ cd_pending: '10950.00', changes: 0 });
    expect(await recounted()).to.equal('10950.00');
  });

  it('takes an addition off when its hold is placed, and never counts a held one again', async () => {
    const [a, b] = await insert(await endorsementValues('3650.00'), await endorsementValues('7300.00'));
    expect(await hold(a!, '3650.00')).to.not.equal(null);
    expect(await checked()).to.deep.equal({ cd_pending: '7300.00', changes: 0 });
    // A held addition rejected, an unheld one cancelled: only the unheld one leaves the sum.
    await update(a!, "status = 'ENDORSEMENT_STATUS_REJECTED'");
    await update(b!, "status = 'ENDORSEMENT_STATUS_CANCELLED'");
    expect(await checked()).to.deep.equal({ cd_pending: '0.00', changes: 0 });
    expect(await recounted()).to.equal('0.00');
  });

  it('follows a premium change, a discarded create and a move to SENT', async () => {
    const [a, b, c] = await insert(
      await endorsementValues('3650.00'),
      await endorsementValues('7300.00'),
      await endorsementValues('100.00'),
    );
    await update(a!, 'premium_impact = ?', ['4000.00']);
    await update(c!, 'premium_impact = ?', ['-100.00']);
    await tenant(clientId).sql('delete from endorsements where id = ?', [b]);
    expect(await checked()).to.deep.equal({ cd_pending: '4000.00', changes: 0 });
    await update(a!, "status = 'ENDORSEMENT_STATUS_SENT_TO_INSURER'");
    // A change that touches no counted column writes nothing.
    await update(c!, 'workflow_started_at = now()');
    expect(await kept()).to.deep.equal({ cd_pending: '4000.00', changes: 1 });
    expect(await checked()).to.deep.equal({ cd_pending: '0.00', changes: 0 });
    expect(await recounted()).to.equal('0.00');
  });

  it("keeps each tenant's changes to itself", async () => {
    await insert(await endorsementValues('3650.00'));
    const other = await makeClient();
    const seen = await tenant(other.clientId).sql<{ n: number }>(
      'select count(*)::int as n from policy_tally_changes where policy_id = ?',
      [policyId],
    );
    expect(seen).to.deep.equal([{ n: 0 }]);
    expect((await kept()).changes).to.equal(1);
  });

  it("keeps the insurer's waiting endorsements as they are sent and decided, folded or not", async () => {
    const waiting = async () => {
      const [row] = await tenant(clientId).sql<{ kept: string; counted: string }>(
        `select ${KEPT_SENT_COUNT_SQL}::text as kept,
                (select count(*) from endorsements e join policies p on p.id = e.policy_id
                  where p.insurer_id = ? and e.status = 'ENDORSEMENT_STATUS_SENT_TO_INSURER')::text as counted`,
        [insurerId, insurerId],
      );
      return row!;
    };
    const [a, b, c] = await insert(
      await endorsementValues('3650.00'),
      await endorsementValues('7300.00'),
      await endorsementValues('100.00', 'ENDORSEMENT_STATUS_SENT_TO_INSURER'),
    );
    for (const id of [a!, b!]) await update(id, "status = 'ENDORSEMENT_STATUS_SENT_TO_INSURER'");
    expect(await waiting()).to.deep.equal({ kept: '3', counted: '3' });
    await update(a!, "status = 'ENDORSEMENT_STATUS_APPROVED'");
    await checked();
    await update(c!, "status = 'ENDORSEMENT_STATUS_REJECTED'");
    expect(await waiting()).to.deep.equal({ kept: '1', counted: '1' });
    await tenant(clientId).sql('delete from endorsements where id = ?', [b]);
    expect(await waiting()).to.deep.equal({ kept: '0', counted: '0' });
  });
});
