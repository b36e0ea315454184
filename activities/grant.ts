import type { EntityManager } from '@mikro-orm/postgresql';
import { ApplicationFailure } from '@temporalio/common';
import { workflowInput } from '../domain/endorsement-workflow.js';
import { createEndorsement, EndorsementRefused, OPEN_STATUS_SQL } from '../domain/endorsements.js';
import type { EndorsementStatus, EndorsementType, GrantItemOutcome, GrantStatus } from '../domain/enums.js';
import { grantEventDataSql, outboxSql } from '../domain/events.js';
import { startGrantWorkflow } from '../domain/grant-workflow.js';
import { startDeliveries } from '../usecases/webhook-deliveries.js';
import {
  clipToPolicy,
  FINAL_GRANT_STATUSES,
  grantOutcome,
  OVERLAPS_SQL,
  refusalOutcome,
  sqlOf,
  type SettledItem,
} from '../domain/grants.js';
import { GRANT_GONE, GRANT_STATE_CONFLICT, type GrantItem } from '../workflows/grant/contract.js';
import type { ActivityDeps } from './index.js';

const gone = (id: string) =>
  ApplicationFailure.create({ type: GRANT_GONE, message: `grant ${id} does not exist`, category: 'BENIGN' });

interface GrantRow {
  client_id: string;
  employee_id: string;
  policy_id: string | null;
  start_date: string;
  end_date: string;
}

interface ItemRow {
  outcome: GrantItemOutcome;
  endorsement_id: string | null;
  detail: string | null;
  type: EndorsementType | null;
}

/**
 * The grant workflow's activities. Each is idempotent under retry: the target policies are a read,
 * each policy's endorsement and its grant_items row (keyed by grant and policy) commit together
 * under the grant row's lock, and status changes are guarded UPDATEs that treat "already there"
 * as done.
 */
export function createGrantActivities(deps: ActivityDeps) {
  const sql = sqlOf(deps.orm.em);

  /** Starts the webhook deliveries a committed change wrote (best effort; the sweeper backs it up). */
  const deliver = (deliveryIds: readonly string[]) => startDeliveries(deps, deps.orm.em, deliveryIds);

  /**
   * A guarded status change, its audit entry and its webhook event (outbox) in one statement; see
   * the endorsement transition.
   */
  async function transition(id: string, from: readonly GrantStatus[], to: GrantStatus): Promise<void> {
    const action = to.replace('GRANT_STATUS_', '').toLowerCase();
    const outbox = outboxSql('change', 'grant.status_changed');
    const [row] = await sql<{ moved: boolean; status: GrantStatus | null; deliveries: string[] }>(
      `with before as (select id, status from grants where id = ? for update),
       moved as (
         update grants g set status = ?, updated_at = now()
           from before b
          where g.id = b.id and g.status in (${from.map(() => '?').join(', ')})
          returning g.id, g.client_id, g.employee_id, g.policy_id, b.status as old_status, g.status),
       audited as (
         insert into audit_events (client_id, entity, entity_id, action, changed_fields)
         select client_id, 'grant', id, ?, '{status}'::text[] from moved),
       change as (
         select client_id, id as entity_id, status as to_status, ${grantEventDataSql('moved')} as data from moved),
       ${outbox.sql}
       select exists (select 1 from moved) as moved, (select status from before) as status,
              array(select id from outbox_deliveries) as deliveries`,
      [id, to, ...from, action, ...outbox.params],
    );
    if (row?.moved) {
      await deliver(row.deliveries);
      return;
    }
    if (row?.status === to) return;
    if (!row?.status) throw gone(id);
    throw ApplicationFailure.create({
      type: GRANT_STATE_CONFLICT,
      message: `grant ${id} is ${row.status}, cannot move to ${to}`,
    });
  }

  const childOf = (clientId: string, employeeId: string, policyId: string, item: ItemRow) =>
    item.outcome === 'ENDORSEMENT' && item.endorsement_id && item.type
      ? workflowInput(
          { id: item.endorsement_id, clientId, policyId, employeeId, type: item.type },
          deps.config,
        )
      : null;

  /** Creates the ADDITION for one policy (D7's rules, dates clipped) or records why not. */
  async function createItem(tx: EntityManager, grantId: string, g: GrantRow, policyId: string) {
    const tsql = sqlOf(tx);
    const [policy] = await tsql<{ start_date: string; end_date: string }>(
      'select start_date::text as start_date, end_date::text as end_date from policies where id = ? and client_id = ?',
      [policyId, g.client_id],
    );
    const period = clipToPolicy(
      { startDate: g.start_date, endDate: g.end_date },
      { startDate: policy?.start_date ?? g.start_date, endDate: policy?.end_date ?? g.end_date },
    );
    let item: ItemRow;
    try {
      const created = await createEndorsement(
        tx,
        g.client_id,
        {
          employeeId: g.employee_id,
          policyId,
          type: 'ENDORSEMENT_TYPE_ADDITION',
          coverageStartDate: period.startDate,
          coverageEndDate: period.endDate,
        },
        { tokenId: null },
      );
      // workflow_started_at stays null until the child's first activity sets it (within moments of
      // the child start). Should the grant stall before that, the endorsement reconciler starts the
      // same workflow id after its grace period, and the grant follows it: no endorsement is orphaned.
      await tsql('update endorsements set grant_id = ? where id = ?', [grantId, created.id]);
      item = { outcome: 'ENDORSEMENT', endorsement_id: created.id, detail: null, type: created.type };
    } catch (err) {
      if (!(err instanceof EndorsementRefused)) throw err;
      item = { ...refusalOutcome(err), endorsement_id: null, type: null };
    }
    await tsql(
      `insert into grant_items (grant_id, policy_id, client_id, outcome, endorsement_id, detail)
       values (?, ?, ?, ?, ?, ?)`,
      [grantId, policyId, g.client_id, item.outcome, item.endorsement_id, item.detail],
    );
    return item;
  }

  return {
    /**
     * D9: the grant's target policies, in a stable order. With policy_id, that policy only (if it
     * is no longer active its item records that); without, every ACTIVE policy of the client
     * overlapping the period. Marks the grant as taken over by its workflow (no discard after),
     * and with that mark records its creation event (none -> PENDING); a retry records nothing new.
     */
    async resolveGrantPolicies(grantId: string): Promise<string[]> {
      const outbox = outboxSql('change', 'grant.status_changed');
      const [g] = await sql<GrantRow & { deliveries: string[] }>(
        `with touched as (
           update grants set workflow_started_at = coalesce(workflow_started_at, now()) where id = ?
           returning id, client_id, employee_id, policy_id, start_date, end_date),
         created as (
           select id, client_id, employee_id, policy_id, null::text as old_status,
                  'GRANT_STATUS_PENDING'::text as status
             from touched),
         change as (
           select client_id, id as entity_id, status as to_status, ${grantEventDataSql('c')} as data
             from created c),
         ${outbox.sql}
         select client_id, employee_id, policy_id, start_date::text as start_date, end_date::text as end_date,
                array(select id from outbox_deliveries) as deliveries
           from touched`,
        [grantId, ...outbox.params],
      );
      if (!g) throw gone(grantId);
      await deliver(g.deliveries);
      if (g.policy_id) return [g.policy_id];
      const rows = await sql<{ id: string }>(
        `select p.id from policies p
          where p.client_id = ? and p.status = 'POLICY_STATUS_ACTIVE' and ${OVERLAPS_SQL}
          order by p.start_date, p.policy_number, p.id`,
        [g.client_id, g.end_date, g.start_date],
      );
      return rows.map((r) => r.id);
    },

    /**
     * One policy of the grant: its endorsement (through the endorsement domain, so D7's rules
     * apply) or the reason it was skipped or failed, with its grant_items row, in one transaction.
     * The grant row's lock serialises attempts; a retry after a commit returns the stored item.
     */
    async createGrantEndorsement(grantId: string, policyId: string): Promise<GrantItem> {
      return deps.orm.em.fork().transactional(async (tx) => {
        const tsql = sqlOf(tx);
        const [g] = await tsql<GrantRow>(
          `select client_id, employee_id, policy_id, start_date::text as start_date, end_date::text as end_date
             from grants where id = ? for update`,
          [grantId],
        );
        if (!g) throw gone(grantId);
        const [stored] = await tsql<ItemRow>(
          `select gi.outcome, gi.endorsement_id, gi.detail, e.type
             from grant_items gi left join endorsements e on e.id = gi.endorsement_id
            where gi.grant_id = ? and gi.policy_id = ?`,
          [grantId, policyId],
        );
        const item = stored ?? (await createItem(tx, grantId, g, policyId));
        return {
          policyId,
          outcome: item.outcome,
          endorsementId: item.endorsement_id,
          detail: item.detail,
          child: childOf(g.client_id, g.employee_id, policyId, item),
        };
      });
    },

    async markGrantInProgress(grantId: string): Promise<void> {
      await transition(grantId, ['GRANT_STATUS_PENDING'], 'GRANT_STATUS_IN_PROGRESS');
    },

    /** For an endorsement whose workflow was started elsewhere: its stored status. */
    async grantEndorsementStatus(
      endorsementId: string,
    ): Promise<{ status: EndorsementStatus; open: boolean }> {
      const [row] = await sql<{ status: EndorsementStatus; open: boolean }>(
        `select status, status in ${OPEN_STATUS_SQL} as open from endorsements where id = ?`,
        [endorsementId],
      );
      if (!row) throw gone(endorsementId);
      return row;
    },

    /**
     * Every endorsement of the grant is settled: derives the final status from the stored items
     * and endorsements, and writes it. Returns the stored final status (a retry after the commit
     * finds it there).
     */
    async completeGrant(grantId: string): Promise<GrantStatus> {
      const items = await sql<{ outcome: GrantItemOutcome; endorsement_status: EndorsementStatus | null }>(
        `select gi.outcome, e.status as endorsement_status
           from grant_items gi left join endorsements e on e.id = gi.endorsement_id
          where gi.grant_id = ?`,
        [grantId],
      );
      const settled: SettledItem[] = items.map((i) => ({
        outcome: i.outcome,
        endorsementStatus: i.endorsement_status,
      }));
      const [row] = await sql<{ status: GrantStatus }>('select status from grants where id = ?', [grantId]);
      if (!row) throw gone(grantId);
      if (FINAL_GRANT_STATUSES.includes(row.status)) return row.status;
      const status = grantOutcome(settled);
      await transition(grantId, ['GRANT_STATUS_PENDING', 'GRANT_STATUS_IN_PROGRESS'], status);
      return status;
    },

    /** Starts the workflow of every grant still without one after the grace period. */
    async reconcileUnstartedGrants(input: { graceMs: number }): Promise<{ started: number }> {
      const rows = await sql<{ id: string; client_id: string; employee_id: string }>(
        `select id, client_id, employee_id from grants
          where workflow_started_at is null and created_at < now() - (? * interval '1 millisecond')
          order by created_at limit 100`,
        [input.graceMs],
      );
      for (const r of rows) {
        await startGrantWorkflow(deps, deps.orm.em, {
          id: r.id,
          clientId: r.client_id,
          employeeId: r.employee_id,
        });
      }
      if (rows.length > 0) deps.logger.info({ started: rows.length }, 'reconciled unstarted grants');
      return { started: rows.length };
    },
  };
}

export type GrantActivities = ReturnType<typeof createGrantActivities>;
