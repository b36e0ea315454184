import type { TenantScope } from './scope.js';

/**
 * The sums kept on a policy (migration 0033): `cd_pending`, `member_count` and `sent_count` as of
 * the policy's last fold, plus the rows of `policy_tally_changes` its triggers appended since. The
 * one place that folds them and the one place that reads them.
 */

/**
 * The fold's first half, for a statement that folds as it does more (the CD check): CTEs deleting
 * the policy's change rows (parameters: the client and the policy) and `folded_total`, their sums
 * and how many there were.
 */
export const FOLD_POLICY_TALLIES_SQL = `folded as (
       delete from policy_tally_changes where client_id = ? and policy_id = ?
       returning cd_pending, members, sent),
     folded_total as (
       select coalesce(sum(cd_pending), 0) as cd_pending, coalesce(sum(members), 0) as members,
              coalesce(sum(sent), 0) as sent, count(*) as changes
         from folded)`;

/** The fold's second half: an UPDATE's SET adding the sums of `total` (a folded_total row) to policy `p`. */
export const FOLDED_INTO_POLICY_SQL = (total: string): string =>
  `cd_pending = p.cd_pending + ${total}.cd_pending, member_count = p.member_count + ${total}.members,
              sent_count = p.sent_count + ${total}.sent`;

/**
 * Adds what changed the policy's sums since the last fold to its columns, deleting the change rows,
 * in one statement. Run where the policy row is locked anyway (the CD check, the approval after its
 * posting), so it adds no lock. Concurrency: a second fold waits on the rows the first deleted and
 * skips them once it commits; the update re-reads the latest row, so nothing is added twice or lost.
 * Changes not yet committed stay for the next fold. A reader sees the columns and the change rows of
 * one snapshot, so its sum is exact either side of a fold.
 */
export async function foldPolicyTallies(scope: TenantScope, policyId: string): Promise<void> {
  await scope.sql(
    `with ${FOLD_POLICY_TALLIES_SQL}
     update policies p set ${FOLDED_INTO_POLICY_SQL('f')}
       from folded_total f
      where p.client_id = ? and p.id = ? and f.changes > 0`,
    [scope.clientId, policyId, scope.clientId, policyId],
  );
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
