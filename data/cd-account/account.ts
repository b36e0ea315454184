import type { EndorsementStatus, EndorsementType } from '../../domain/enums.js';
import { outboxSql } from '../webhooks/outbox.js';
import { policyTalliesFold } from '../policy-tallies.js';
import type { SystemScope, TenantScope } from '../scope.js';
import { prepared, type Statement } from '../sql.js';
import { cdPosting, policyCdLock, type CdPosting, type CdTotals, type LockedCd } from './ledger.js';

/** What the CD account needs of one endorsement. */
export interface EndorsementAccount {
  client_id: string;
  policy_id: string;
  status: EndorsementStatus;
  type: EndorsementType;
  premium_impact: string;
  awaiting: boolean;
  cd_balance: string;
  cd_held: string;
}

/**
 * The endorsement with its policy's account, the POLICY row locked for the caller's transaction
 * (every decision on a policy's account locks it first, so they serialise in one order); undefined
 * for an unknown id. The lock is FOR NO KEY UPDATE, the one the account's own UPDATE takes: the
 * account's decisions still exclude each other, while an insert that only references the policy
 * (a new endorsement, a member row: their foreign key's KEY SHARE) is not made to wait for them.
 */
export async function lockEndorsementAccount(
  system: SystemScope,
  id: string,
): Promise<EndorsementAccount | undefined> {
  const [row] = await system.sql<EndorsementAccount>(
    `select e.client_id, e.policy_id, e.status, e.type, e.premium_impact::text as premium_impact,
            e.awaiting_funds_since is not null as awaiting, p.cd_balance::text as cd_balance,
            p.cd_held::text as cd_held
       from endorsements e join policies p on p.id = e.policy_id
      where e.id = ?
      for no key update of p`,
    [id],
  );
  return row;
}

/** What the hold at review needs of an endorsement, none of which changes after its create. */
export interface EndorsementCost {
  client_id: string;
  policy_id: string;
  premium_impact: string;
}

/** The endorsement's client, policy and premium (no lock); undefined for an unknown id. */
export async function findEndorsementCost(
  system: SystemScope,
  id: string,
): Promise<EndorsementCost | undefined> {
  const [row] = await system.sql<EndorsementCost>(
    `select client_id, policy_id, premium_impact::text as premium_impact from endorsements where id = ?`,
    [id],
  );
  return row;
}

/**
 * The waiting mark's new value: the instant the endorsement began waiting for funds, kept from the
 * first time (its place in the queue, oldest first) while `waiting` holds, else null. `column` names
 * the endorsement's column as the statement spells it.
 */
const awaitingFundsSince = (waiting: string, column = 'awaiting_funds_since'): string =>
  `case when ${waiting} then coalesce(${column}, clock_timestamp()) end`;

/** What the hold at review did: whether the endorsement holds its cost, the account as locked. */
export interface HoldAtReview {
  placed: boolean;
  /** The policy's account before the hold (the reason a waiting endorsement is shown quotes it). */
  account: LockedCd;
  /** The low-balance check's deliveries to start. */
  deliveries: string[];
}

/** holdAtReview's mark of the endorsement (prepared: every review sends it). */
const holdMarkStatement = prepared(
  'endorsement_hold_mark',
  `with placed as (
              select ?::boolean or exists (
                       select 1 from cd_ledger_entries x where x.endorsement_id = ? and x.kind = 'hold') as placed),
            marked as (
              update endorsements e
                 set awaiting_funds_since = ${awaitingFundsSince('not p.placed', 'e.awaiting_funds_since')}
                from placed p
               where e.client_id = ? and e.id = ? and (e.awaiting_funds_since is not null or not p.placed)
              returning e.id)
            select placed from placed`,
);

/**
 * The hold at review as ONE message (scope.message), sent outside any transaction: the policy row
 * locked (lockPolicyCd's statement, the order every decision on the account keeps); the hold posted,
 * when the endorsement costs anything (`posting`; its guard refuses it while the balance is short or
 * older endorsements wait); the endorsement marked waiting for funds, or no longer waiting, by
 * whether it now holds (its hold entry exists: posted now, by a retry before, or by a top-up
 * meanwhile); then the low-balance check (the fold and the check, as checkCdLow). PostgreSQL runs
 * the message as one transaction, so the policy row is held while the database runs these
 * statements and released at their end, never across a round trip to the worker: on a policy with
 * thousands of reviews at once (a census), each waits for the others' database time alone.
 * Undefined when the policy is gone.
 */
export async function holdAtReview(
  scope: TenantScope,
  endorsementId: string,
  policyId: string,
  posting: CdPosting | null,
): Promise<HoldAtReview | undefined> {
  const mark = holdMarkStatement([posting === null, endorsementId, scope.clientId, endorsementId]);
  const statements = [policyCdLock(scope, policyId), ...(posting ? [cdPosting(scope, posting)] : [])];
  const answers = await scope.message([
    ...statements,
    mark,
    policyTalliesFold(scope, policyId),
    cdLowCheck(scope, policyId),
  ]);
  const [account] = answers[0] as LockedCd[];
  const [marked] = answers[statements.length] as { placed: boolean }[];
  const deliveries = answers.at(-1) as { id: string }[];
  if (!account) return undefined;
  return { placed: marked!.placed, account, deliveries: deliveries.map((d) => d.id) };
}

/**
 * An approval's posting (postCdEntry's statement) and the fold of the policy's kept sums as ONE
 * message inside the caller's transaction: the posting's update takes the policy row and the fold,
 * which needs it held, runs in the same round trip. The row is then held across one round trip to
 * the caller (its commit) where a statement each held it across two: the approvals of a policy
 * wait for each other's database time and one trip, however busy the worker's event loop.
 * Returns the totals after, or null when nothing was posted (guard or duplicate), as postCdEntry.
 */
export async function postCdEntryAndFold(scope: TenantScope, p: CdPosting): Promise<CdTotals | null> {
  const [posted] = await scope.message([cdPosting(scope, p), policyTalliesFold(scope, p.policyId)]);
  return (posted as CdTotals[])[0] ?? null;
}

/**
 * The policy's endorsements waiting for funds, oldest first, their rows locked (a cancel that
 * committed meanwhile is no longer PENDING and drops out).
 */
export async function lockEndorsementsAwaitingFunds(
  scope: TenantScope,
  policyId: string,
): Promise<{ id: string; premium_impact: string }[]> {
  return scope.sql(
    `select id, premium_impact::text as premium_impact from endorsements
      where client_id = ? and policy_id = ? and awaiting_funds_since is not null
        and status = 'ENDORSEMENT_STATUS_PENDING'
      order by awaiting_funds_since, id
      for update`,
    [scope.clientId, policyId],
  );
}

/**
 * A policy's CD account as a dry run reads it (no lock: a forecast): the available balance and
 * whether endorsements already wait for funds. Undefined for a policy not of the client.
 */
export async function readCdAccount(
  scope: TenantScope,
  policyId: string,
): Promise<{ available: string; waiting: boolean } | undefined> {
  const [row] = await scope.sql<{ available: string; waiting: boolean }>(
    `select (p.cd_balance - p.cd_held)::text as available,
            exists (select 1 from endorsements e
                     where e.client_id = p.client_id and e.policy_id = p.id and e.awaiting_funds_since is not null
                       and e.status = 'ENDORSEMENT_STATUS_PENDING') as waiting
       from policies p where p.client_id = ? and p.id = ?`,
    [scope.clientId, policyId],
  );
  return row;
}

/** Marks the endorsement waiting for funds (keeping its first instant: its place in the queue), or not. */
export async function setAwaitingFunds(scope: TenantScope, id: string, waiting: boolean): Promise<void> {
  await scope.sql(
    `update endorsements
        set awaiting_funds_since = ${awaitingFundsSince('?')}
      where client_id = ? and id = ?`,
    [waiting, scope.clientId, id],
  );
}

/** The threshold in force: the policy's own, else 10 % of the gross annual premium (D15). */
const THRESHOLD_SQL = 'coalesce(p.cd_low_threshold, round(p.gross_premium * 0.10, 2))';

/**
 * Sets (or, with null, clears back to the default) a policy's low-balance threshold; false for an
 * unknown policy. Idempotent: setting the same value again changes nothing.
 */
export async function setCdLowThreshold(
  scope: TenantScope,
  policyId: string,
  threshold: string | null,
): Promise<boolean> {
  const rows = await scope.sql<{ id: string }>(
    'update policies set cd_low_threshold = ?::numeric where client_id = ? and id = ? returning id',
    [threshold, scope.clientId, policyId],
  );
  return rows.length > 0;
}

/** The threshold in force (`own`: set for this policy, not the default) and whether the account is low. */
export async function readCdLowState(
  scope: TenantScope,
  policyId: string,
): Promise<{ threshold: string; own: boolean; low: boolean } | undefined> {
  const [row] = await scope.sql<{ threshold: string; own: boolean; low: boolean }>(
    `select ${THRESHOLD_SQL}::text as threshold, p.cd_low_threshold is not null as own, p.cd_low as low
       from policies p where p.client_id = ? and p.id = ?`,
    [scope.clientId, policyId],
  );
  return row;
}

/**
 * The low-balance check of one policy: the available balance less the additions not yet holding
 * (PENDING, positive premium, no hold) against the threshold (its own, else 10 % of the gross annual
 * premium). A change of state flips `cd_low`; a flip to low counts a crossing and records
 * `policy.cd_balance_low` keyed by that count, so an event goes out once per crossing and a retry or
 * a concurrent check records nothing new (the update re-checks the flag on the latest row). Returns
 * the deliveries to start. It runs under the policy's lock on every hold, so it reads the additions'
 * sum kept on the policy (`cd_pending`, data/policy-tallies.ts), folded first, rather than summing
 * thousands of pending additions each time. The fold and the check go in one round trip.
 */
export async function checkCdLow(scope: TenantScope, policyId: string): Promise<string[]> {
  const [, rows] = await scope.message([policyTalliesFold(scope, policyId), cdLowCheck(scope, policyId)]);
  return (rows as { id: string }[]).map((r) => r.id);
}

const lowOutbox = outboxSql('change', 'policy.cd_balance_low');
/** The check (prepared: every hold sends it). */
const lowCheckStatement = prepared(
  'policy_cd_low_check',
  `with state as (
       select p.client_id, p.id, p.cd_balance, p.cd_held, ${THRESHOLD_SQL} as threshold, p.cd_pending as pending
         from policies p where p.client_id = ? and p.id = ?),
     judged as (select s.*, s.cd_balance - s.cd_held - s.pending < s.threshold as low from state s),
     flipped as (
       update policies p
          set cd_low = j.low, cd_low_crossings = p.cd_low_crossings + case when j.low then 1 else 0 end
         from judged j
        where p.id = j.id and p.cd_low <> j.low
       returning p.client_id, p.id, p.cd_low, p.cd_low_crossings, j.cd_balance, j.cd_held, j.pending,
                 j.threshold),
     change as (
       select client_id, id as entity_id, 'LOW_' || cd_low_crossings as to_status,
              jsonb_build_object('policy_id', id, 'cd_balance', cd_balance::text, 'cd_held', cd_held::text,
                'cd_available_balance', (cd_balance - cd_held)::text,
                'cd_forecast', (cd_held + pending)::text, 'cd_low_threshold', threshold::text) as data
         from flipped where cd_low),
     ${lowOutbox.sql}
     select id from outbox_deliveries`,
);

/** The check's statement, after the fold (its rows: the deliveries to start, `id`). */
function cdLowCheck(scope: TenantScope, policyId: string): Statement {
  return lowCheckStatement([scope.clientId, policyId, ...lowOutbox.params]);
}

/** Every active policy (any tenant), for the daily low-balance pass. */
export async function listPoliciesForCdCheck(
  system: SystemScope,
): Promise<{ client_id: string; id: string }[]> {
  return system.sql(`select client_id, id from policies where status = 'POLICY_STATUS_ACTIVE' order by id`);
}

/** The client owning a policy (operators name policies by id alone), if any. */
export async function findPolicyClient(system: SystemScope, policyId: string): Promise<string | undefined> {
  const [row] = await system.sql<{ client_id: string }>('select client_id from policies where id = ?', [
    policyId,
  ]);
  return row?.client_id;
}
