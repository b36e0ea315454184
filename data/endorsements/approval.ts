import { coveredRelationships } from '../../domain/endorsements/endorsement.js';
import type { CoverageType } from '../../domain/enums.js';
import { newId } from '../../domain/ids.js';
import type { MemberUhid } from '../../domain/insurer-exchange/decisions.js';
import type { EndorsementRow } from './endorsements.js';
import { endorsementEventDataSql, outboxSql } from '../webhooks/outbox.js';
import type { SystemScope, TenantScope } from '../scope.js';

/*
 * The statements of an insurer's approval, all inside one transaction the caller holds: the
 * endorsement and its policy locked, the member rows, the endorsement APPROVED.
 */

/** The stored endorsement with what its approval needs of the policy and the employee. */
export interface LockedEndorsement extends Omit<
  EndorsementRow,
  'rejection_reason' | 'awaiting_funds_available'
> {
  coverage_type: CoverageType;
  employee_name: string;
  /** What the endorsement's CD hold put aside (its held_change), or null when it holds nothing. */
  hold_held_change: string | null;
}

/**
 * Locks the endorsement (by the workflow's endorsement id) for the approval: concurrent attempts
 * serialise here. The policy row is not locked: its CD posting locks it when it runs (see
 * applyEndorsementApproval), so approvals of one policy overlap everywhere but there. Reads the
 * endorsement's CD hold with it (its posting consumes the hold): the hold is placed at review and
 * released only after a status change, which locks this row first, so it cannot change before the
 * posting.
 */
export async function lockEndorsementForApproval(
  tx: SystemScope,
  id: string,
): Promise<LockedEndorsement | undefined> {
  const [row] = await tx.sql<LockedEndorsement>(
    `select e.id, e.client_id, e.policy_id, e.employee_id, e.dependent_id, e.type, e.status,
            e.coverage_start_date::text as coverage_start_date, e.coverage_end_date::text as coverage_end_date,
            e.premium_impact::text as premium_impact, e.sum_insured::text as sum_insured,
            p.coverage_type, emp.name as employee_name,
            (select h.held_change::text from cd_ledger_entries h
              where h.client_id = e.client_id and h.endorsement_id = e.id and h.kind = 'hold') as hold_held_change
       from endorsements e
       join policies p on p.id = e.policy_id
       join employees emp on emp.id = e.employee_id
      where e.id = ?
      for update of e`,
    [id],
  );
  return row;
}

export interface InsurerIds {
  insurerMemberId: string | null;
  uhid: string | null;
  /** The dependents' own UHIDs (by dependent id), when the insurer sent them. */
  members?: MemberUhid[];
}

/**
 * ADDITION: the employee's row (rank 0) and one row per dependent the coverage_type covers
 * (rank 1); a dependent's own ADDITION (D16) enrols that person only, the decision's UHID being
 * theirs. Keyed by policy_members_by_endorsement; a person already active on the policy through
 * another path keeps that row (policy_members_one_active), hence `on conflict do nothing`.
 */
export async function enrolMembers(tx: TenantScope, e: LockedEndorsement, ids: InsurerIds): Promise<void> {
  if (e.dependent_id) {
    const uhid = ids.members?.find((m) => m.dependent_id === e.dependent_id)?.uhid ?? ids.uhid;
    return insertMembers(tx, [memberRow(tx, e, ids, e.dependent_id, uhid)]);
  }
  const relationships = coveredRelationships(e.coverage_type);
  const dependents = relationships.length
    ? await tx.sql<{ id: string }>(
        `select id from dependents where client_id = ? and employee_id = ? and relationship in (${relationships.map(() => '?').join(', ')}) order by id`,
        [tx.clientId, e.employee_id, ...relationships],
      )
    : [];
  const uhidOf = new Map((ids.members ?? []).map((m) => [m.dependent_id, m.uhid]));
  // The decision's UHID identifies the employee; a dependent's comes by its id in `members`.
  await insertMembers(tx, [
    memberRow(tx, e, ids, null, ids.uhid),
    ...dependents.map((d) => memberRow(tx, e, ids, d.id, uhidOf.get(d.id) ?? null)),
  ]);
}

function memberRow(
  tx: TenantScope,
  e: LockedEndorsement,
  ids: InsurerIds,
  dependentId: string | null,
  uhid: string | null,
) {
  return {
    id: newId('member'),
    client_id: tx.clientId,
    policy_id: e.policy_id,
    employee_id: e.employee_id,
    dependent_id: dependentId,
    endorsement_id: e.id,
    insurer_member_id: ids.insurerMemberId,
    uhid,
    coverage_start_date: e.coverage_start_date,
    coverage_end_date: e.coverage_end_date,
    // The family's premium sits on the employee's row; a dependent's own ADDITION carries its own.
    premium_amount: dependentId && !e.dependent_id ? null : e.premium_impact,
    sum_insured: e.sum_insured,
    remaining_sum_insured: e.sum_insured,
    employee_name: e.employee_name,
    member_rank: dependentId ? 1 : 0,
  };
}

async function insertMembers(tx: TenantScope, rows: ReturnType<typeof memberRow>[]): Promise<void> {
  // A dependent's row enrolled with its own UHID gets an audit entry `policy_member` / `uhid`.
  await tx.sql(
    `with enrolled as (
     insert into policy_members (id, client_id, policy_id, employee_id, dependent_id, endorsement_id,
       insurer_member_id, uhid, coverage_start_date, coverage_end_date, premium_amount, sum_insured,
       remaining_sum_insured, status, employee_name, member_rank)
     select id, client_id, policy_id, employee_id, dependent_id, endorsement_id, insurer_member_id, uhid,
            coverage_start_date, coverage_end_date, premium_amount, sum_insured, remaining_sum_insured,
            'active', employee_name, member_rank
       from jsonb_to_recordset(?::jsonb) as r(id text, client_id text, policy_id text, employee_id text,
            dependent_id text, endorsement_id text, insurer_member_id text, uhid text, coverage_start_date date,
            coverage_end_date date, premium_amount numeric, sum_insured numeric, remaining_sum_insured numeric,
            employee_name text, member_rank smallint)
     on conflict do nothing
     returning id, client_id, dependent_id, uhid)
     insert into audit_events (client_id, entity, entity_id, action, changed_fields, actor_token_id)
     select client_id, 'policy_member', id, 'uhid', '{uhid}'::text[], null
       from enrolled where dependent_id is not null and uhid is not null`,
    [JSON.stringify(rows)],
  );
}

/**
 * DELETION: the employee's and dependents' active rows (a dependent's own DELETION: that person's
 * row only) end on coverage_end_date (D10). They stay
 * active until that date; the caller's endLapsedCoverOf turns them inactive at once when it has
 * already passed. Idempotent: moving the end date to the same date again changes nothing.
 */
export async function endMemberCover(tx: TenantScope, e: LockedEndorsement): Promise<void> {
  await tx.sql(
    `update policy_members
        set coverage_end_date = greatest(coverage_start_date, least(coverage_end_date, ?::date)),
            updated_at = now()
      where client_id = ? and policy_id = ? and employee_id = ? and status = 'active'
        and (?::text is null or dependent_id = ?)`,
    [e.coverage_end_date, tx.clientId, e.policy_id, e.employee_id, e.dependent_id, e.dependent_id],
  );
}

/**
 * REINSTATEMENT (D17): the rows the DELETION ended (the employee's, and the dependents' whose cover
 * ended with it: every row of the family on the policy ending on the day before the restored period)
 * run again to the restored end, active, each with an audit entry `policy_member` / `reinstate`.
 * The rows themselves come back, so their start date, UHID and insurer member id are the original
 * ones and the cover shows no gap. A person active on the policy through another row keeps that one
 * (policy_members_one_active). Idempotent: once restored a row no longer ends on that day, so a retry
 * restores nothing.
 */
export async function restoreMemberCover(tx: TenantScope, e: LockedEndorsement): Promise<void> {
  await tx.sql(
    `with restored as (
       update policy_members pm
          set coverage_end_date = ?::date, status = 'active', updated_at = now()
        where pm.client_id = ? and pm.policy_id = ? and pm.employee_id = ?
          and pm.coverage_end_date = ?::date - 1 and pm.status in ('active', 'inactive')
          and not exists (select 1 from policy_members o
                           where o.policy_id = pm.policy_id and o.employee_id = pm.employee_id
                             and coalesce(o.dependent_id, '') = coalesce(pm.dependent_id, '')
                             and o.status = 'active' and o.id <> pm.id)
        returning pm.id, pm.client_id)
     insert into audit_events (client_id, entity, entity_id, action, changed_fields, actor_token_id)
     select client_id, 'policy_member', id, 'reinstate', '{status,coverage_end_date}'::text[], null
       from restored`,
    [e.coverage_end_date, tx.clientId, e.policy_id, e.employee_id, e.coverage_start_date],
  );
}

/** MODIFICATION: the new sum insured on the family's active rows; remaining moves by the difference. */
export async function changeMemberSumInsured(tx: TenantScope, e: LockedEndorsement): Promise<void> {
  await tx.sql(
    `update policy_members
        set remaining_sum_insured = greatest(0, coalesce(remaining_sum_insured, sum_insured, 0)
                                              + (?::numeric - coalesce(sum_insured, 0))),
            sum_insured = ?::numeric,
            premium_amount = case when dependent_id is null then coalesce(premium_amount, 0) + ?::numeric
                                  else premium_amount end,
            updated_at = now()
      where client_id = ? and policy_id = ? and employee_id = ? and status = 'active'`,
    [e.sum_insured, e.sum_insured, e.premium_impact, tx.clientId, e.policy_id, e.employee_id],
  );
}

/**
 * The endorsement APPROVED with the insurer's ids, its audit entry and its webhook event (outbox) in
 * one statement. The entry names `member_uhids` when dependents' UHIDs were written on their member
 * rows with it. Returns the event's new deliveries, for the caller to start after its commit (none
 * when this change was already recorded: the event's dedupe key).
 */
export async function markEndorsementApproved(
  tx: TenantScope,
  e: Pick<LockedEndorsement, 'id' | 'status'>,
  ids: InsurerIds,
): Promise<string[]> {
  const fields = ['status', 'insurer_member_id', 'uhid', ...(ids.members?.length ? ['member_uhids'] : [])];
  const outbox = outboxSql('change', 'endorsement.status_changed');
  const rows = await tx.sql<{ id: string }>(
    `with approved as (
       update endorsements set status = 'ENDORSEMENT_STATUS_APPROVED', insurer_member_id = ?, uhid = ?,
              rejection_reason = null, decided_at = now(), updated_at = now()
        where client_id = ? and id = ?
        returning id, client_id, policy_id, employee_id, ?::text as old_status, status, rejection_reason),
     audited as (
       insert into audit_events (client_id, entity, entity_id, action, changed_fields, actor_token_id)
       select client_id, 'endorsement', id, 'approve', array[?]::text[], null
         from approved),
     change as (
       select client_id, id as entity_id, status as to_status, ${endorsementEventDataSql('approved')} as data
         from approved),
     ${outbox.sql}
     select id from outbox_deliveries`,
    [ids.insurerMemberId, ids.uhid, tx.clientId, e.id, e.status, fields, ...outbox.params],
  );
  return rows.map((r) => r.id);
}
