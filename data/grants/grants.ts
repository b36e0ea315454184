import type {
  EndorsementStatus,
  EndorsementType,
  GrantItemOutcome,
  GrantStatus,
} from '../../domain/enums.js';
import type { GrantCandidate, GrantRequest } from '../../domain/grants/grant.js';
import { GrantItemSchema } from '../../db/entities/membership.js';
import { PolicySchema } from '../../db/entities/policy.js';
import { newId } from '../../domain/ids.js';
import { grantEventDataSql, outboxSql } from '../webhooks/outbox.js';
import type { SystemScope, TenantScope } from '../scope.js';

/**
 * A policy `p` overlaps a grant period when the clipped period is at least one day long (start
 * strictly before end, as an endorsement requires); the SQL of domain/grants/grant.ts `overlaps`.
 * Placeholders: grant end, grant start.
 */
const OVERLAPS_SQL = 'p.start_date < ?::date and p.end_date > ?::date';

/** The grant row as stored; dates as text so no time zone ever shifts them. */
export interface GrantRow {
  id: string;
  employee_id: string;
  start_date: string;
  end_date: string;
  status: GrantStatus;
}

/** One grant_items row with its endorsement's status, when it has one. */
export interface GrantItemRow {
  policy_id: string;
  outcome: GrantItemOutcome;
  endorsement_id: string | null;
  detail: string | null;
  endorsement_status: EndorsementStatus | null;
  rejection_reason: string | null;
}

/**
 * D9's one read before a create: the employee and the client's ACTIVE candidate policies (with
 * policy_id that one policy; without, the ones overlapping the period). No row: no such employee.
 */
export async function readGrantCandidates(scope: TenantScope, req: GrantRequest): Promise<GrantCandidate[]> {
  return scope.sql<GrantCandidate>(
    `select p.id as policy_id, p.start_date::text as start_date, p.end_date::text as end_date
       from employees emp
       left join policies p on p.client_id = emp.client_id and p.status = 'POLICY_STATUS_ACTIVE'
                           and ${req.policyId ? 'p.id = ?' : OVERLAPS_SQL}
      where emp.client_id = ? and emp.id = ?`,
    [...(req.policyId ? [req.policyId] : [req.endDate, req.startDate]), scope.clientId, req.employeeId],
  );
}

/**
 * Stores a PENDING grant and its audit entry in one statement (atomic). Not deduplicated by
 * content: two identical requests are two grants (the Idempotency-Key is the way to retry
 * safely), and the second one's endorsements are skipped as already open or already covered.
 */
export async function insertGrant(
  scope: TenantScope,
  req: GrantRequest,
  actor: { tokenId: string | null },
): Promise<string> {
  const id = newId('grant');
  await scope.sql(
    `with created as (
       insert into grants (id, client_id, employee_id, policy_id, start_date, end_date, status)
       values (?, ?, ?, ?, ?, ?, 'GRANT_STATUS_PENDING')
       returning id, client_id)
     insert into audit_events (client_id, entity, entity_id, action, changed_fields, actor_token_id)
     select client_id, 'grant', id, 'create', '{status,policy_id,start_date,end_date}'::text[], ? from created`,
    [id, scope.clientId, req.employeeId, req.policyId ?? null, req.startDate, req.endDate, actor.tokenId],
  );
  return id;
}

/** D9: one of the scope's grants with its items (endorsements, skipped and failed policies). */
export async function readGrant(
  scope: TenantScope,
  id: string,
): Promise<{ grant: GrantRow; items: GrantItemRow[] } | undefined> {
  const [grant] = await scope.sql<GrantRow>(
    `select id, employee_id, start_date::text as start_date, end_date::text as end_date, status
       from grants where client_id = ? and id = ?`,
    [scope.clientId, id],
  );
  if (!grant) return undefined;
  const items = await scope.sql<GrantItemRow>(
    `select gi.policy_id, gi.outcome, gi.endorsement_id, gi.detail,
            e.status as endorsement_status, e.rejection_reason
       from grant_items gi left join endorsements e on e.id = gi.endorsement_id
      where gi.client_id = ? and gi.grant_id = ?
      order by gi.created_at, gi.policy_id`,
    [scope.clientId, id],
  );
  return { grant, items };
}

/** Records that the grant's workflow runs. Idempotent: the first mark stays. */
export async function markGrantWorkflowStarted(scope: TenantScope, id: string): Promise<void> {
  await scope.sql(
    'update grants set workflow_started_at = now() where client_id = ? and id = ? and workflow_started_at is null',
    [scope.clientId, id],
  );
}

/**
 * Removes a grant nobody has started, with its audit entry, in one statement (atomic).
 * Concurrency: the guard (unstarted, PENDING, no items) loses to the workflow's first activity or
 * the reconciler, whichever marks it first; false then, and the grant stands.
 */
export async function discardUnstartedGrant(scope: TenantScope, id: string): Promise<boolean> {
  const rows = await scope.sql<{ id: string }>(
    `with gone as (
       delete from grants
        where client_id = ? and id = ? and workflow_started_at is null and status = 'GRANT_STATUS_PENDING'
          and not exists (select 1 from grant_items where grant_id = grants.id)
        returning id, client_id),
     audited as (
       insert into audit_events (client_id, entity, entity_id, action, changed_fields, actor_token_id)
       select client_id, 'grant', id, 'discard', '{status}'::text[], null from gone)
     select id from gone`,
    [scope.clientId, id],
  );
  return rows.length > 0;
}

/** The ids a grant workflow start needs, for rows of any tenant. */
export interface UnstartedGrant {
  id: string;
  clientId: string;
  employeeId: string;
}

/** Every tenant's grants still without a workflow after the grace period, oldest first. */
export async function listUnstartedGrants(system: SystemScope, graceMs: number): Promise<UnstartedGrant[]> {
  return system.sql<UnstartedGrant>(
    `select id, client_id as "clientId", employee_id as "employeeId" from grants
      where workflow_started_at is null and created_at < now() - (? * interval '1 millisecond')
      order by created_at limit 100`,
    [graceMs],
  );
}

/*
 * The workflow's statements. A grant's workflow knows only its grant's id (the activities'
 * signatures), so these take the SystemScope and key on that id; the row carries its client id.
 */

/** What a grant's workflow works from. */
export interface StoredGrant {
  client_id: string;
  employee_id: string;
  policy_id: string | null;
  start_date: string;
  end_date: string;
}

/**
 * Marks the grant as taken over by its workflow (no discard after) and, with that mark, records
 * its creation event (none -> PENDING): one statement. Idempotent: the mark keeps its first value
 * and the event's dedupe key makes a retry record nothing new. Undefined when there is no grant.
 */
export async function markGrantTakenOver(
  system: SystemScope,
  id: string,
): Promise<(StoredGrant & { deliveries: string[] }) | undefined> {
  const outbox = outboxSql('change', 'grant.status_changed');
  const [g] = await system.sql<StoredGrant & { deliveries: string[] }>(
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
    [id, ...outbox.params],
  );
  return g;
}

/** The scope's ACTIVE policies overlapping a period, in D9's stable order. */
export async function listOverlappingActivePolicies(
  scope: TenantScope,
  period: { startDate: string; endDate: string },
): Promise<string[]> {
  const rows = await scope.sql<{ id: string }>(
    `select p.id from policies p
      where p.client_id = ? and p.status = 'POLICY_STATUS_ACTIVE' and ${OVERLAPS_SQL}
      order by p.start_date, p.policy_number, p.id`,
    [scope.clientId, period.endDate, period.startDate],
  );
  return rows.map((r) => r.id);
}

/** Locks the grant row (inside the caller's transaction): one grant's items are made one at a time. */
export async function lockGrant(tx: SystemScope, id: string): Promise<StoredGrant | undefined> {
  const [g] = await tx.sql<StoredGrant>(
    `select client_id, employee_id, policy_id, start_date::text as start_date, end_date::text as end_date
       from grants where id = ? for update`,
    [id],
  );
  return g;
}

/** A grant item as the workflow sees it, with its endorsement's type. */
export interface StoredGrantItem {
  outcome: GrantItemOutcome;
  endorsement_id: string | null;
  detail: string | null;
  type: EndorsementType | null;
}

export async function readGrantItem(
  scope: TenantScope,
  grantId: string,
  policyId: string,
): Promise<StoredGrantItem | undefined> {
  const [item] = await scope.sql<StoredGrantItem>(
    `select gi.outcome, gi.endorsement_id, gi.detail, e.type
       from grant_items gi left join endorsements e on e.id = gi.endorsement_id
      where gi.client_id = ? and gi.grant_id = ? and gi.policy_id = ?`,
    [scope.clientId, grantId, policyId],
  );
  return item;
}

/** A policy's period, whatever its status; undefined when the scope has no such policy. */
export async function readPolicyPeriod(
  scope: TenantScope,
  policyId: string,
): Promise<{ startDate: string; endDate: string } | undefined> {
  const policy = await scope.entities((em) =>
    em.findOne(
      PolicySchema,
      { id: policyId, clientId: scope.clientId },
      { fields: ['startDate', 'endDate'] },
    ),
  );
  return policy ? { startDate: policy.startDate, endDate: policy.endDate } : undefined;
}

/**
 * Stores what the grant did on one policy. Keyed by (grant, policy): written under the grant's
 * lock after readGrantItem found none, so a retry finds the stored item instead of writing twice.
 */
export async function insertGrantItem(
  scope: TenantScope,
  grantId: string,
  policyId: string,
  item: StoredGrantItem,
): Promise<void> {
  await scope.entities((em) =>
    em.insert(GrantItemSchema, {
      grantId,
      policyId,
      clientId: scope.clientId,
      outcome: item.outcome,
      endorsementId: item.endorsement_id,
      detail: item.detail,
    }),
  );
}

/** The grant's stored status and each item's outcome with its endorsement's status. */
export async function readGrantSettlement(
  system: SystemScope,
  id: string,
): Promise<
  | {
      status: GrantStatus;
      items: { outcome: GrantItemOutcome; endorsementStatus: EndorsementStatus | null }[];
    }
  | undefined
> {
  const items = await system.sql<{ outcome: GrantItemOutcome; endorsementStatus: EndorsementStatus | null }>(
    `select gi.outcome, e.status as "endorsementStatus"
       from grant_items gi left join endorsements e on e.id = gi.endorsement_id
      where gi.grant_id = ?`,
    [id],
  );
  const [row] = await system.sql<{ status: GrantStatus }>('select status from grants where id = ?', [id]);
  return row ? { status: row.status, items } : undefined;
}

/** What a guarded grant transition found: moved (and the deliveries it wrote), or the status it saw. */
export interface GrantTransitionResult {
  moved: boolean;
  /** The status before the statement; null when there is no such grant. */
  status: GrantStatus | null;
  deliveries: string[];
}

/**
 * A guarded status change (only from `from`), its audit entry and its webhook event (outbox) in
 * one statement (atomic), the row locked first so the event's old status is the one replaced.
 * Idempotent as the endorsement transition: the caller tells "already there" from the status seen.
 */
export async function transitionGrant(
  system: SystemScope,
  id: string,
  from: readonly GrantStatus[],
  to: GrantStatus,
): Promise<GrantTransitionResult | undefined> {
  const action = to.replace('GRANT_STATUS_', '').toLowerCase();
  const outbox = outboxSql('change', 'grant.status_changed');
  const [row] = await system.sql<GrantTransitionResult>(
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
  return row;
}
