import type { TenantScope } from './scope.js';
import { prepared, type Statement } from './sql.js';

/**
 * The sums kept on a policy (migration 0033): `cd_pending`, `member_count` and `sent_count` as of
 * the policy's last fold, plus the rows of `policy_tally_changes` its triggers appended since. The
 * one place that folds them and the one place that reads them.
 */

/**
 * Adds what changed the policy's sums since the last fold to its columns, deleting the change rows,
 * in one statement. Run where the policy row is locked anyway (the CD check, the approval after its
 * posting), so it adds no lock. Concurrency: a second fold waits on the rows the first deleted and
 * skips them once it commits; the update re-reads the latest row, so nothing is added twice or lost.
 * Changes not yet committed stay for the next fold. A reader sees the columns and the change rows of
 * one snapshot, so its sum is exact either side of a fold.
 */
export async function foldPolicyTallies(scope: TenantScope, policyId: string): Promise<void> {
  await scope.sql(policyTalliesFold(scope, policyId));
}

const foldStatement = prepared(
  'policy_tallies_fold',
  `with folded as (
       delete from policy_tally_changes where client_id = ? and policy_id = ?
       returning cd_pending, members, sent),
     total as (select sum(cd_pending) as cd_pending, sum(members) as members, sum(sent) as sent from folded)
     update policies p
        set cd_pending = p.cd_pending + t.cd_pending, member_count = p.member_count + t.members,
            sent_count = p.sent_count + t.sent
       from total t
      where p.client_id = ? and p.id = ? and t.members is not null`,
);

/** foldPolicyTallies' statement, to send in a message with others (prepared: every hold sends it). */
export function policyTalliesFold(scope: TenantScope, policyId: string): Statement {
  return foldStatement([scope.clientId, policyId, scope.clientId, policyId]);
}

/** Unfolded changes of the policy `p` to one of its sums (`column` of policy_tally_changes). */
const unfolded = (column: 'members' | 'sent') =>
  `coalesce((select sum(c.${column}) from policy_tally_changes c
              where c.client_id = p.client_id and c.policy_id = p.id), 0)`;

/** A policy's member rows, its two parameters the client and the policy (0 for no such policy). */
export const KEPT_MEMBER_COUNT_SQL = `coalesce((select p.member_count + ${unfolded('members')}
  from policies p where p.client_id = ? and p.id = ?), 0)`;

/** The endorsements waiting for an insurer across its policies, its parameter the insurer. */
export const KEPT_SENT_COUNT_SQL = `coalesce((select sum(p.sent_count + ${unfolded('sent')})
  from policies p where p.insurer_id = ?), 0)`;
