import type { CdEntryKind } from '../../domain/cd-account/account.js';
import { formatPaise } from '../../domain/premium.js';
import { newId } from '../../domain/ids.js';
import { isoSql } from '../webhooks/outbox.js';
import { readPage, type CursorCodec, type KeysetQuery, type Page, type PageRequest } from '../paging.js';
import type { TenantScope } from '../scope.js';
import { prepared, type Statement } from '../sql.js';

/**
 * The CD account's ledger: holds and postings in one table, each entry written with the policy's
 * running totals by ONE statement that cannot overdraw (postCdEntry). Callers that decide on the
 * account first (hold or wait, fund the queue) lock the policy row with lockPolicyCd in their
 * transaction, so those decisions serialise per policy.
 */

export interface CdPosting {
  policyId: string;
  kind: CdEntryKind;
  endorsementId?: string | null;
  /** A top-up's or adjustment's reference: one entry per (policy, reference). */
  reference?: string | null;
  /** Signed change of the balance, in paise. */
  amount: bigint;
  /** Signed change of the sum held, in paise. */
  held: bigint;
  /** Refuse the posting when it would leave the available balance (balance − held) below zero. */
  guarded: boolean;
  /** Also refuse it while an endorsement of the policy waits for funds (other than this one). */
  queueFirst?: boolean;
  reason: string;
}

export interface CdTotals {
  cd_balance: string;
  cd_held: string;
}

/** The posting's statement (prepared: every hold and approval sends it). */
const postingStatement = prepared(
  'cd_posting',
  `with moved as (
       update policies p
          set cd_balance = p.cd_balance + ?::numeric, cd_held = p.cd_held + ?::numeric,
              cd_entries = p.cd_entries + 1
        where p.client_id = ? and p.id = ?
          and (not ?::boolean or p.cd_balance + ?::numeric - (p.cd_held + ?::numeric) >= 0)
          and (not ?::boolean or not exists (
                select 1 from endorsements w
                 where w.client_id = p.client_id and w.policy_id = p.id
                   and w.awaiting_funds_since is not null and w.id <> ?))
          and (select 1 from cd_ledger_entries x where x.endorsement_id = ? and x.kind = ?) is null
          and (select 1 from cd_ledger_entries x where x.policy_id = p.id and x.reference = ?) is null
        returning p.client_id, p.id, p.cd_balance, p.cd_held, p.cd_entries),
     entry as (
       insert into cd_ledger_entries (id, client_id, policy_id, endorsement_id, kind, amount, held_change,
                                      balance_after, held_after, reference, seq, reason)
       select ?, client_id, id, ?, ?, ?::numeric, ?::numeric, cd_balance, cd_held, ?, cd_entries, ?
         from moved
       returning id)
     select m.cd_balance::text as cd_balance, m.cd_held::text as cd_held from moved m, entry`,
);

/**
 * Posts one entry and moves the policy's totals in ONE statement: the policy row's update carries
 * the guard (the available balance after it is not negative, re-checked on the latest row version
 * when a concurrent posting held the row) and the idempotency check (no entry of this kind for the
 * endorsement, or of this reference); the entry is inserted only when the row moved. The unique
 * indexes back the check: a concurrent duplicate fails the statement whole. Returns the totals
 * after, or null when nothing was posted (guard or duplicate). Each check is one probe of its unique
 * index (scalar subqueries): as one `not exists` with an OR, the planner could scan every entry of
 * the policy, under the policy's lock, on every posting (a ledger grows for the policy's whole life).
 */
export async function postCdEntry(scope: TenantScope, p: CdPosting): Promise<CdTotals | null> {
  const [row] = await scope.sql<CdTotals>(cdPosting(scope, p));
  return row ?? null;
}

/** postCdEntry's statement, to send in a message with others (its rows: the totals after, or none). */
export function cdPosting(scope: TenantScope, p: CdPosting): Statement {
  const amount = formatPaise(p.amount);
  const held = formatPaise(p.held);
  const endorsementId = p.endorsementId ?? null;
  const reference = p.reference ?? null;
  return postingStatement([
    amount,
    held,
    scope.clientId,
    p.policyId,
    p.guarded,
    amount,
    held,
    p.queueFirst ?? false,
    endorsementId ?? '',
    endorsementId,
    p.kind,
    reference,
    newId('ledger'),
    endorsementId,
    p.kind,
    amount,
    held,
    reference,
    p.reason,
  ]);
}

/**
 * The policy's account, its row locked for the caller's transaction; undefined when not the client's.
 * FOR NO KEY UPDATE, as lockEndorsementAccount: decisions on the account serialise, inserts that
 * reference the policy (new endorsements) do not wait for them.
 */
export async function lockPolicyCd(scope: TenantScope, policyId: string): Promise<LockedCd | undefined> {
  const [row] = await scope.sql<LockedCd>(policyCdLock(scope, policyId));
  return row;
}

export type LockedCd = CdTotals & { gross_premium: string };

const policyLockStatement = prepared(
  'policy_cd_lock',
  `select cd_balance::text as cd_balance, cd_held::text as cd_held, gross_premium::text as gross_premium
     from policies where client_id = ? and id = ? for no key update`,
);

/** lockPolicyCd's statement, to send first in a message (its one row: the account, LockedCd). */
export function policyCdLock(scope: TenantScope, policyId: string): Statement {
  return policyLockStatement([scope.clientId, policyId]);
}

/** One endorsement's entry of a kind (its hold, release, debit, credit), if posted. */
export async function findEndorsementEntry(
  scope: TenantScope,
  endorsementId: string,
  kind: CdEntryKind,
): Promise<{ amount: string; held_change: string } | undefined> {
  const [row] = await scope.sql<{ amount: string; held_change: string }>(
    `select amount::text as amount, held_change::text as held_change from cd_ledger_entries
      where client_id = ? and endorsement_id = ? and kind = ?`,
    [scope.clientId, endorsementId, kind],
  );
  return row;
}

/** A posting by reference (a top-up already recorded), if any. */
export async function findReferenceEntry(
  scope: TenantScope,
  policyId: string,
  reference: string,
): Promise<{ id: string; kind: CdEntryKind; amount: string } | undefined> {
  const [row] = await scope.sql<{ id: string; kind: CdEntryKind; amount: string }>(
    `select id, kind, amount::text as amount from cd_ledger_entries
      where client_id = ? and policy_id = ? and reference = ?`,
    [scope.clientId, policyId, reference],
  );
  return row;
}

/** One row of GET /v1/policy/{id}/cd-ledger. */
export interface CdLedgerRow {
  id: string;
  seq: string;
  kind: CdEntryKind;
  amount: string;
  held_change: string;
  balance_after: string;
  held_after: string;
  endorsement_id: string | null;
  reference: string | null;
  created_at: string;
}

/** One page of a policy's ledger in posting order (D5 keyset on seq) and whether the policy is the client's. */
export async function listCdLedger(
  scope: TenantScope,
  codec: CursorCodec,
  policyId: string,
  req: PageRequest,
): Promise<{ policyFound: boolean; page: Page<CdLedgerRow> }> {
  const q: KeysetQuery = {
    scope: `cd-ledger:${scope.clientId}:${policyId}`,
    from: 'cd_ledger_entries l',
    where: 'l.client_id = ? and l.policy_id = ?',
    params: [scope.clientId, policyId],
    select: `l.id, l.seq::text as seq, l.kind, l.amount::text as amount, l.held_change::text as held_change,
             l.balance_after::text as balance_after, l.held_after::text as held_after, l.endorsement_id,
             l.reference, ${isoSql('l.created_at')} as created_at`,
    key: [{ sql: 'l.seq', type: 'bigint' }],
    extra: {
      columns: { policy_found: 'exists(select 1 from policies where client_id = ? and id = ?)' },
      params: [scope.clientId, policyId],
    },
  };
  const page = await readPage<CdLedgerRow>(scope, codec, q, req);
  return { policyFound: page.extra.policy_found === true, page };
}

/**
 * Our side of an insurer's CD statement over its period (dates in India): the balance before its
 * first day and at the end of its last, and the balance-moving entries in it, keyed by endorsement id
 * or reference. The opening-balance entry counts as before any period (the insurer's opening
 * includes it), so it is never a posting here.
 */
export async function ledgerForStatement(
  scope: TenantScope,
  policyId: string,
  period: { from: string; to: string },
): Promise<{ opening: string; closing: string; postings: { reference: string; amount: string }[] }> {
  const day = "(l.created_at at time zone 'Asia/Kolkata')::date";
  const opening = "(l.kind = 'adjustment' and l.reference = 'opening-balance')";
  const [totals] = await scope.sql<{ opening: string; closing: string }>(
    `select coalesce(sum(l.amount) filter (where ${opening} or ${day} < ?::date), 0)::text as opening,
            coalesce(sum(l.amount) filter (where ${opening} or ${day} <= ?::date), 0)::text as closing
       from cd_ledger_entries l where l.client_id = ? and l.policy_id = ?`,
    [period.from, period.to, scope.clientId, policyId],
  );
  const postings = await scope.sql<{ reference: string; amount: string }>(
    `select coalesce(l.endorsement_id, l.reference) as reference, l.amount::text as amount
       from cd_ledger_entries l
      where l.client_id = ? and l.policy_id = ? and l.amount <> 0 and not ${opening}
        and ${day} between ?::date and ?::date
      order by l.seq`,
    [scope.clientId, policyId, period.from, period.to],
  );
  return { opening: totals!.opening, closing: totals!.closing, postings };
}

/** One balance-moving entry of a monthly premium statement, with what the client needs to read it. */
export interface StatementPostingRow {
  id: string;
  kind: CdEntryKind;
  amount: string;
  balance_after: string;
  endorsement_id: string | null;
  endorsement_type: string | null;
  coverage_start_date: string | null;
  coverage_end_date: string | null;
  /** A DELETION's member's cover end before it: their ADDITION's end on the policy, else the policy's. */
  cover_end_before: string | null;
  member_name: string | null;
  /** `SELF` for the employee, else the dependent's relationship. */
  member_relationship: string | null;
  reference: string | null;
  created_at: string;
  /** The day it was posted, in India (D13). */
  posted_on: string;
}

/**
 * A policy's CD account over one month (dates in India, D13), as GET /cd-ledger presents the balance
 * (balance_after, the opening-balance entry a posting like any other): the balance before the first
 * day, every entry that moved the balance in the month in posting order (holds and releases move
 * only the held sum, so they are not postings), and the balance after the last. Undefined when the
 * policy is not the client's. Reads only: a posting made between the two queries is dated today, never
 * before the month, so the opening read first stays the balance the postings start from.
 */
export async function ledgerForMonth(
  scope: TenantScope,
  policyId: string,
  month: { from: string; to: string },
): Promise<{ policyNumber: string; opening: string; postings: StatementPostingRow[] } | undefined> {
  const day = "(l.created_at at time zone 'Asia/Kolkata')::date";
  const [policy] = await scope.sql<{ policy_number: string; opening: string }>(
    `select p.policy_number,
            coalesce((select l.balance_after from cd_ledger_entries l
                       where l.client_id = p.client_id and l.policy_id = p.id and ${day} < ?::date
                       order by l.seq desc limit 1), 0)::text as opening
       from policies p where p.client_id = ? and p.id = ?`,
    [month.from, scope.clientId, policyId],
  );
  if (!policy) return undefined;
  const postings = await scope.sql<StatementPostingRow>(
    `select l.id, l.kind, l.amount::text as amount, l.balance_after::text as balance_after, l.endorsement_id,
            e.type as endorsement_type, e.coverage_start_date::text as coverage_start_date,
            e.coverage_end_date::text as coverage_end_date,
            case when e.type = 'ENDORSEMENT_TYPE_DELETION' then coalesce(
              (select max(a.coverage_end_date) from endorsements a
                where a.client_id = e.client_id and a.policy_id = e.policy_id and a.employee_id = e.employee_id
                  and a.dependent_id is not distinct from e.dependent_id and a.id <> e.id
                  and a.type = 'ENDORSEMENT_TYPE_ADDITION' and a.status = 'ENDORSEMENT_STATUS_APPROVED'),
              p.end_date)::text end as cover_end_before,
            coalesce(d.name, m.name) as member_name,
            case when e.id is null then null else coalesce(d.relationship, 'SELF') end as member_relationship,
            l.reference, ${isoSql('l.created_at')} as created_at, ${day}::text as posted_on
       from cd_ledger_entries l
       join policies p on p.client_id = l.client_id and p.id = l.policy_id
       left join endorsements e on e.client_id = l.client_id and e.id = l.endorsement_id
       left join employees m on m.client_id = e.client_id and m.id = e.employee_id
       left join dependents d on d.client_id = e.client_id and d.id = e.dependent_id
      where l.client_id = ? and l.policy_id = ? and l.kind not in ('hold', 'release')
        and ${day} between ?::date and ?::date
      order by l.seq`,
    [scope.clientId, policyId, month.from, month.to],
  );
  return { policyNumber: policy.policy_number, opening: policy.opening, postings };
}
