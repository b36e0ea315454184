import type { EntityManager } from '@mikro-orm/postgresql';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { recordAudit } from '../domain/audit.js';
import { coveredRelationships, OPEN_STATUS_SQL } from '../domain/endorsements.js';
import { startEndorsementWorkflow } from '../domain/endorsement-workflow.js';
import { endorsementEventDataSql, outboxSql, recordStatusEvent } from '../domain/events.js';
import { startDeliveries } from '../domain/webhook-workflow.js';
import type { CoverageType, EndorsementStatus, EndorsementType } from '../domain/enums.js';
import { newId } from '../domain/ids.js';
import { amountAtLeast, formatPaise, toPaise } from '../domain/premium.js';
import type { InsurerSubmission } from '../adapters/types.js';
import {
  ENDORSEMENT_GONE,
  ENDORSEMENT_STATE_CONFLICT,
  REVIEW_REJECTED,
} from '../workflows/endorsement/contract.js';
import { heartbeating } from './heartbeat.js';
import type { ActivityDeps } from './index.js';

const sqlOf =
  (em: EntityManager) =>
  <T>(query: string, params: unknown[] = []): Promise<T[]> =>
    em.getConnection().execute<T[]>(query, params, 'all', em.getTransactionContext());

/**
 * A line through the activity's context logger, which adds workflowId, activityType and attempt;
 * the endorsement id is added here. Ids only, never personal data. Nothing outside an activity.
 */
function note(message: string, meta: Record<string, unknown>): void {
  let context: Context;
  try {
    context = Context.current();
  } catch {
    return;
  }
  context.log.info(message, meta);
}

/** Business outcomes, not faults: BENIGN keeps them out of the worker's error logs. */
const gone = (id: string) =>
  ApplicationFailure.create({
    type: ENDORSEMENT_GONE,
    message: `endorsement ${id} does not exist`,
    category: 'BENIGN',
  });
const reviewRejected = (message: string) =>
  ApplicationFailure.create({ type: REVIEW_REJECTED, message, category: 'BENIGN' });

/**
 * The endorsement workflow's activities. Each one is idempotent under retry: status changes are
 * guarded UPDATEs (`where status = expected`) that treat "already there" as done, member rows and
 * the ledger entry are keyed by unique indexes on the endorsement id, and the approval is one
 * transaction that first checks whether it already committed.
 */
export function createEndorsementActivities(deps: ActivityDeps) {
  const fork = () => deps.orm.em.fork();
  const sql = sqlOf(deps.orm.em);

  /** Starts the webhook deliveries a committed change wrote (best effort; the sweeper backs it up). */
  const deliver = (deliveryIds: readonly string[]) => startDeliveries(deps, deps.orm.em, deliveryIds);

  /**
   * A guarded status change, its audit entry and its webhook event (outbox) in one statement
   * (atomic). The row is locked first so the event's old status is the one replaced. The final
   * select sees the row as it was before the update, so when nothing moved it tells why: already
   * there (a retry of an attempt that committed, whose event is already recorded) or in another state.
   */
  async function transition(
    id: string,
    to: EndorsementStatus,
    action: string,
    rejectionReason: string | null = null,
  ): Promise<void> {
    const fields = rejectionReason ? "'{status,rejection_reason}'::text[]" : "'{status}'::text[]";
    const outbox = outboxSql('change', 'endorsement.status_changed');
    const [row] = await sql<{ moved: boolean; status: EndorsementStatus | null; deliveries: string[] }>(
      `with before as (select id, status from endorsements where id = ? for update),
       moved as (
         update endorsements e
            set status = ?, rejection_reason = ?, updated_at = now(),
                decided_at = case when ? then now() else e.decided_at end
           from before b
          where e.id = b.id and e.status in ${OPEN_STATUS_SQL} and e.status <> ?
          returning e.id, e.client_id, e.policy_id, e.employee_id, b.status as old_status, e.status,
                    e.rejection_reason),
       audited as (
         insert into audit_events (client_id, entity, entity_id, action, changed_fields)
         select client_id, 'endorsement', id, ?, ${fields} from moved),
       change as (
         select client_id, id as entity_id, status as to_status, ${endorsementEventDataSql('moved')} as data
           from moved),
       ${outbox.sql}
       select exists (select 1 from moved) as moved, (select status from before) as status,
              array(select id from outbox_deliveries) as deliveries`,
      [id, to, rejectionReason, to !== 'ENDORSEMENT_STATUS_SENT_TO_INSURER', to, action, ...outbox.params],
    );
    if (row?.moved) {
      await deliver(row.deliveries);
      return;
    }
    if (row?.status === to) return;
    if (!row?.status) throw gone(id);
    throw ApplicationFailure.create({
      type: ENDORSEMENT_STATE_CONFLICT,
      message: `endorsement ${id} is ${row.status}, cannot move to ${to}`,
    });
  }

  async function loadSubmission(id: string): Promise<InsurerSubmission> {
    const [row] = await sql<InsurerSubmission>(
      `select e.id as "endorsementId", e.client_id as "clientId", e.policy_id as "policyId",
              p.policy_number as "policyNumber", i.id as "insurerId", i.code as "insurerCode", i.adapter,
              e.employee_id as "employeeId", emp.employee_code as "employeeCode", e.type,
              e.coverage_start_date::text as "coverageStartDate", e.coverage_end_date::text as "coverageEndDate",
              e.sum_insured::text as "sumInsured", e.premium_impact::text as "premiumImpact"
         from endorsements e
         join policies p on p.id = e.policy_id
         join insurers i on i.id = p.insurer_id
         join employees emp on emp.id = e.employee_id
        where e.id = ?`,
      [id],
    );
    if (!row) throw gone(id);
    return row;
  }

  return {
    /**
     * D7 automated review: the employee is ACTIVE (for an addition) and the policy's CD balance
     * covers the premium. Fails with a non-retryable ReviewRejected whose message starts `Review:`.
     * Writes the "workflow runs" mark and, with it, the endorsement's creation event (none ->
     * PENDING): recorded here rather than at the API's insert because from this mark on the
     * endorsement stands (an unstarted one may still be discarded). A retry records nothing new.
     */
    async reviewEndorsement(id: string): Promise<void> {
      const outbox = outboxSql('change', 'endorsement.status_changed');
      const [row] = await sql<{
        status: EndorsementStatus;
        type: EndorsementType;
        premium_impact: string;
        employee_status: string;
        cd_balance: string;
        deliveries: string[];
      }>(
        `with touched as (
           update endorsements set workflow_started_at = coalesce(workflow_started_at, now())
            where id = ? returning id, client_id, status, type, premium_impact, employee_id, policy_id),
         created as (
           select id, client_id, policy_id, employee_id, null::text as old_status,
                  'ENDORSEMENT_STATUS_PENDING'::text as status, null::text as rejection_reason
             from touched),
         change as (
           select client_id, id as entity_id, status as to_status, ${endorsementEventDataSql('c')} as data
             from created c),
         ${outbox.sql}
         select t.status, t.type, t.premium_impact::text as premium_impact, emp.status as employee_status,
                p.cd_balance::text as cd_balance, array(select id from outbox_deliveries) as deliveries
           from touched t join employees emp on emp.id = t.employee_id join policies p on p.id = t.policy_id`,
        [id, ...outbox.params],
      );
      if (row) await deliver(row.deliveries);
      if (!row) throw gone(id);
      if (row.status !== 'ENDORSEMENT_STATUS_PENDING') return;
      if (row.type === 'ENDORSEMENT_TYPE_ADDITION' && row.employee_status !== 'ACTIVE') {
        throw reviewRejected(`Review: the employee is not active (${row.employee_status})`);
      }
      if (toPaise(row.premium_impact) > 0n && !amountAtLeast(row.cd_balance, row.premium_impact)) {
        throw reviewRejected(
          `Review: the policy's CD balance ${row.cd_balance} does not cover the premium ${row.premium_impact}`,
        );
      }
    },

    async markSentToInsurer(id: string): Promise<void> {
      await transition(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER', 'sent_to_insurer');
    },

    async rejectEndorsement(id: string, reason: string): Promise<void> {
      await transition(id, 'ENDORSEMENT_STATUS_REJECTED', 'reject', reason.slice(0, 1000));
    },

    async cancelEndorsement(id: string): Promise<void> {
      await transition(id, 'ENDORSEMENT_STATUS_CANCELLED', 'cancel');
    },

    /** D8: hands the endorsement to its insurer's adapter (idempotent by endorsement id), heartbeating. */
    async submitToInsurer(id: string): Promise<void> {
      const submission = await loadSubmission(id);
      await heartbeating((signal) => deps.adapters.get(submission.adapter).submit(submission, { signal }));
      note('endorsement submitted to insurer', { endorsementId: id, adapter: submission.adapter });
    },

    async withdrawFromInsurer(id: string): Promise<void> {
      const submission = await loadSubmission(id);
      await heartbeating((signal) => deps.adapters.get(submission.adapter).withdraw(submission, { signal }));
      note('endorsement withdrawn from insurer', { endorsementId: id, adapter: submission.adapter });
    },

    /**
     * The insurer approved: in ONE transaction, the member rows, the CD ledger entry and balance,
     * and the endorsement's APPROVED status with the insurer's ids. The endorsement and policy rows
     * are locked first; an endorsement already APPROVED means a previous attempt committed.
     */
    async applyApproval(
      id: string,
      ids: { insurerMemberId: string | null; uhid: string | null },
    ): Promise<void> {
      const deliveries = await fork().transactional(async (tx): Promise<string[]> => {
        const e = await lockForApproval(tx, id);
        if (e.status === 'ENDORSEMENT_STATUS_APPROVED') return [];
        if (e.status !== 'ENDORSEMENT_STATUS_SENT_TO_INSURER') {
          throw ApplicationFailure.create({
            type: ENDORSEMENT_STATE_CONFLICT,
            message: `endorsement ${id} is ${e.status}, cannot be approved`,
          });
        }
        if (e.type === 'ENDORSEMENT_TYPE_ADDITION') await enrol(tx, e, ids);
        else if (e.type === 'ENDORSEMENT_TYPE_DELETION') await endCover(tx, e);
        else await changeSumInsured(tx, e);
        await postLedgerEntry(tx, e);
        await sqlOf(tx)(
          `update endorsements set status = 'ENDORSEMENT_STATUS_APPROVED', insurer_member_id = ?, uhid = ?,
                  rejection_reason = null, decided_at = now(), updated_at = now()
            where id = ?`,
          [ids.insurerMemberId, ids.uhid, id],
        );
        await recordAudit(tx, {
          clientId: e.client_id,
          entity: 'endorsement',
          entityId: id,
          action: 'approve',
          changedFields: ['status', 'insurer_member_id', 'uhid'],
          actorTokenId: null,
        });
        return recordStatusEvent(tx, {
          type: 'endorsement.status_changed',
          clientId: e.client_id,
          entityId: id,
          toStatus: 'ENDORSEMENT_STATUS_APPROVED',
          data: {
            endorsement_id: id,
            policy_id: e.policy_id,
            employee_id: e.employee_id,
            old_status: e.status,
            new_status: 'ENDORSEMENT_STATUS_APPROVED',
          },
        });
      });
      note('endorsement approval applied', { endorsementId: id });
      await deliver(deliveries);
    },

    /**
     * Starts the workflow of every endorsement still without one after the grace period (a crash
     * between the API's commit and its start). Returns how many it started.
     */
    async reconcileUnstartedEndorsements(input: { graceMs: number }): Promise<{ started: number }> {
      const rows = await sql<{
        id: string;
        client_id: string;
        policy_id: string;
        employee_id: string;
        type: EndorsementType;
      }>(
        `select id, client_id, policy_id, employee_id, type from endorsements
          where workflow_started_at is null and created_at < now() - (? * interval '1 millisecond')
          order by created_at limit 100`,
        [input.graceMs],
      );
      for (const r of rows) {
        const created = {
          id: r.id,
          clientId: r.client_id,
          policyId: r.policy_id,
          employeeId: r.employee_id,
          type: r.type,
        };
        await startEndorsementWorkflow(deps, deps.orm.em, created);
      }
      if (rows.length > 0) deps.logger.info({ started: rows.length }, 'reconciled unstarted endorsements');
      return { started: rows.length };
    },
  };
}

interface LockedEndorsement {
  id: string;
  client_id: string;
  policy_id: string;
  employee_id: string;
  type: EndorsementType;
  status: EndorsementStatus;
  coverage_start_date: string;
  coverage_end_date: string;
  premium_impact: string;
  sum_insured: string;
  coverage_type: CoverageType;
  cd_balance: string;
  employee_name: string;
}

async function lockForApproval(tx: EntityManager, id: string): Promise<LockedEndorsement> {
  const [row] = await sqlOf(tx)<LockedEndorsement>(
    `select e.id, e.client_id, e.policy_id, e.employee_id, e.type, e.status,
            e.coverage_start_date::text as coverage_start_date, e.coverage_end_date::text as coverage_end_date,
            e.premium_impact::text as premium_impact, e.sum_insured::text as sum_insured,
            p.coverage_type, p.cd_balance::text as cd_balance, emp.name as employee_name
       from endorsements e
       join policies p on p.id = e.policy_id
       join employees emp on emp.id = e.employee_id
      where e.id = ?
      for update of e, p`,
    [id],
  );
  if (!row) throw gone(id);
  return row;
}

/**
 * ADDITION: the employee's row (rank 0) and one row per dependent the coverage_type covers
 * (rank 1). Keyed by policy_members_by_endorsement; a person already active on the policy through
 * another path keeps that row (policy_members_one_active), hence `on conflict do nothing`.
 */
async function enrol(
  tx: EntityManager,
  e: LockedEndorsement,
  ids: { insurerMemberId: string | null; uhid: string | null },
): Promise<void> {
  const relationships = coveredRelationships(e.coverage_type);
  const dependents = relationships.length
    ? await sqlOf(tx)<{ id: string }>(
        `select id from dependents where client_id = ? and employee_id = ? and relationship in (${relationships.map(() => '?').join(', ')}) order by id`,
        [e.client_id, e.employee_id, ...relationships],
      )
    : [];
  const person = (dependentId: string | null) => ({
    id: newId('member'),
    client_id: e.client_id,
    policy_id: e.policy_id,
    employee_id: e.employee_id,
    dependent_id: dependentId,
    endorsement_id: e.id,
    insurer_member_id: ids.insurerMemberId,
    // The insurer's UHID identifies the employee; dependents get theirs when the insurer sends them.
    uhid: dependentId ? null : ids.uhid,
    coverage_start_date: e.coverage_start_date,
    coverage_end_date: e.coverage_end_date,
    premium_amount: dependentId ? null : e.premium_impact,
    sum_insured: e.sum_insured,
    remaining_sum_insured: e.sum_insured,
    employee_name: e.employee_name,
    member_rank: dependentId ? 1 : 0,
  });
  const rows = [person(null), ...dependents.map((d) => person(d.id))];
  await sqlOf(tx)(
    `insert into policy_members (id, client_id, policy_id, employee_id, dependent_id, endorsement_id,
       insurer_member_id, uhid, coverage_start_date, coverage_end_date, premium_amount, sum_insured,
       remaining_sum_insured, status, employee_name, member_rank)
     select id, client_id, policy_id, employee_id, dependent_id, endorsement_id, insurer_member_id, uhid,
            coverage_start_date, coverage_end_date, premium_amount, sum_insured, remaining_sum_insured,
            'active', employee_name, member_rank
       from jsonb_to_recordset(?::jsonb) as r(id text, client_id text, policy_id text, employee_id text,
            dependent_id text, endorsement_id text, insurer_member_id text, uhid text, coverage_start_date date,
            coverage_end_date date, premium_amount numeric, sum_insured numeric, remaining_sum_insured numeric,
            employee_name text, member_rank smallint)
     on conflict do nothing`,
    [JSON.stringify(rows)],
  );
}

/** DELETION: the employee's and dependents' active rows end on coverage_end_date and turn inactive. */
async function endCover(tx: EntityManager, e: LockedEndorsement): Promise<void> {
  await sqlOf(tx)(
    `update policy_members
        set status = 'inactive',
            coverage_end_date = greatest(coverage_start_date, least(coverage_end_date, ?::date)),
            updated_at = now()
      where policy_id = ? and employee_id = ? and status = 'active'`,
    [e.coverage_end_date, e.policy_id, e.employee_id],
  );
}

/** MODIFICATION: the new sum insured on the family's active rows; remaining moves by the difference. */
async function changeSumInsured(tx: EntityManager, e: LockedEndorsement): Promise<void> {
  await sqlOf(tx)(
    `update policy_members
        set remaining_sum_insured = greatest(0, coalesce(remaining_sum_insured, sum_insured, 0)
                                              + (?::numeric - coalesce(sum_insured, 0))),
            sum_insured = ?::numeric,
            premium_amount = case when dependent_id is null then coalesce(premium_amount, 0) + ?::numeric
                                  else premium_amount end,
            updated_at = now()
      where policy_id = ? and employee_id = ? and status = 'active'`,
    [e.sum_insured, e.sum_insured, e.premium_impact, e.policy_id, e.employee_id],
  );
}

/**
 * One ledger entry per endorsement (cd_ledger_entries.endorsement_id is unique) and the balance
 * moved by exactly premium_impact: an addition's premium is debited, a deletion's refund credited.
 */
async function postLedgerEntry(tx: EntityManager, e: LockedEndorsement): Promise<void> {
  const impact = toPaise(e.premium_impact);
  const balanceAfter = formatPaise(toPaise(e.cd_balance) - impact);
  const inserted = await sqlOf(tx)<{ id: string }>(
    `insert into cd_ledger_entries (id, client_id, policy_id, endorsement_id, amount, balance_after, reason)
     values (?, ?, ?, ?, ?, ?, ?)
     on conflict (endorsement_id) do nothing
     returning id`,
    [newId('ledger'), e.client_id, e.policy_id, e.id, formatPaise(-impact), balanceAfter, e.type],
  );
  if (inserted[0]) {
    await sqlOf(tx)('update policies set cd_balance = ?::numeric where id = ?', [balanceAfter, e.policy_id]);
  }
}

export type EndorsementActivities = ReturnType<typeof createEndorsementActivities>;
