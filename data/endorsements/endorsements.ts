import type {
  CandidatePolicy,
  EndorsementDecision,
  EndorsementRequest,
} from '../../domain/endorsements/endorsement.js';
import type { ReinstatementCandidate } from '../../domain/endorsements/reinstatement.js';
import {
  OPEN_ENDORSEMENT_STATUSES,
  type EndorsementStatus,
  type EndorsementType,
} from '../../domain/enums.js';
import { newId } from '../../domain/ids.js';
import {
  insurerSubmission,
  type InsurerSubmission,
  type SubmissionRow,
} from '../../domain/insurer-exchange/submission.js';
import { EndorsementSchema } from '../../db/entities/membership.js';
import { TENANT_FILTER } from '../../db/entities/tenant.js';
import { activeOnSql } from '../member-cover.js';
import { endorsementEventDataSql, outboxSql } from '../webhooks/outbox.js';
import type { SystemScope, TenantScope } from '../scope.js';
import { OPEN_STATUS_SQL, prepared } from '../sql.js';

/** Columns of spec 2.5 as stored; dates and money as text so no time zone or float shifts them. */
const ENDORSEMENT_COLUMNS = `e.id, e.client_id, e.policy_id, e.employee_id, e.dependent_id, e.type, e.status,
  e.coverage_start_date::text as coverage_start_date, e.coverage_end_date::text as coverage_end_date,
  e.premium_impact::text as premium_impact, e.sum_insured::text as sum_insured, e.rejection_reason,
  case when e.awaiting_funds_since is not null and e.status = 'ENDORSEMENT_STATUS_PENDING'
       then (select (p.cd_balance - p.cd_held)::text from policies p where p.id = e.policy_id)
  end as awaiting_funds_available`;

export interface EndorsementRow {
  id: string;
  client_id: string;
  policy_id: string;
  employee_id: string;
  /** D16: the one dependent it adds or removes; null for the employee's own (with the family). */
  dependent_id: string | null;
  type: EndorsementType;
  status: EndorsementStatus;
  coverage_start_date: string;
  coverage_end_date: string;
  premium_impact: string;
  sum_insured: string;
  rejection_reason: string | null;
  /** Waiting for funds (the CD account): the policy's available balance; null otherwise. */
  awaiting_funds_available: string | null;
}

/** One of the scope's endorsements as stored, or undefined. */
export async function readEndorsement(scope: TenantScope, id: string): Promise<EndorsementRow | undefined> {
  const [row] = await scope.sql<EndorsementRow>(
    `select ${ENDORSEMENT_COLUMNS} from endorsements e where e.client_id = ? and e.id = ?`,
    [scope.clientId, id],
  );
  return row;
}

/**
 * D7's one read before a create: the employee, the candidate policies (ACTIVE; the requested one
 * only with policy_id), the employee's cover on each on `today` (D10: cover ended by date does not
 * count) and any open endorsement on each. No row: no such employee. A row with a null policy: the
 * employee, but no candidate policy.
 */
export async function readEndorsementCandidates(
  scope: TenantScope,
  req: EndorsementRequest,
  today: string,
): Promise<CandidatePolicy[]> {
  return scope.sql<CandidatePolicy>(
    `select p.id, p.policy_number, p.status, p.start_date::text as start_date, p.end_date::text as end_date,
            emp.employee_code, (select i.code from insurers i where i.id = p.insurer_id) as insurer_code,
            p.slabs, p.default_sum_insured::text as default_sum_insured,
            m.policy_id is not null as employee_active,
            m.sum_insured::text as member_sum_insured,
            m.coverage_start_date::text as member_start, m.coverage_end_date::text as member_end,
            (select o.id from endorsements o
              where o.client_id = emp.client_id and o.employee_id = emp.id and o.policy_id = p.id
                and o.status in ${OPEN_STATUS_SQL}) as open_endorsement_id
       from employees emp
       left join policies p on p.client_id = emp.client_id and p.status = 'POLICY_STATUS_ACTIVE'
                           ${req.policyId ? 'and p.id = ?' : ''}
       left join policy_members m on m.policy_id = p.id and m.employee_id = emp.id
                                 and m.dependent_id is null and ${activeOnSql('m')}
      where emp.client_id = ? and emp.id = ?`,
    [...(req.policyId ? [req.policyId] : []), today, scope.clientId, req.employeeId],
  );
}

/**
 * D17's one read before a REINSTATEMENT: the employee, the most recently approved DELETION of the
 * employee's own cover (not a dependent's own) on an ACTIVE policy of the client (the requested one
 * only with policy_id), the cover that DELETION ended (the employee's row ending on its last day) and
 * that cover's end before it (the ADDITION that enrolled the row, else the policy's end), whether the
 * employee is covered on the policy on `today` again, and any open endorsement there. No row: no such
 * employee.
 */
export async function readReinstatementCandidate(
  scope: TenantScope,
  req: Pick<EndorsementRequest, 'employeeId' | 'policyId'>,
  today: string,
): Promise<ReinstatementCandidate | undefined> {
  const policyParam = req.policyId ? [req.policyId] : [];
  const [row] = await scope.sql<ReinstatementCandidate>(
    `select emp.employee_code,
            ${req.policyId ? "exists(select 1 from policies fp where fp.client_id = emp.client_id and fp.id = ? and fp.status = 'POLICY_STATUS_ACTIVE')" : 'null::boolean'} as policy_found,
            p.id as policy_id, p.policy_number, p.status as policy_status,
            p.start_date::text as start_date, p.end_date::text as end_date, p.slabs,
            p.default_sum_insured::text as default_sum_insured,
            (select i.code from insurers i where i.id = p.insurer_id) as insurer_code,
            d.id as deletion_id, d.coverage_end_date::text as deletion_end,
            d.sum_insured::text as deletion_sum_insured,
            m.coverage_start_date::text as cover_start,
            coalesce((select a.coverage_end_date from endorsements a
                       where a.client_id = emp.client_id and a.id = m.endorsement_id and a.policy_id = p.id
                         and a.type = 'ENDORSEMENT_TYPE_ADDITION'), p.end_date)::text as cover_end_before,
            coalesce(exists(select 1 from policy_members x
                             where x.client_id = emp.client_id and x.policy_id = p.id and x.employee_id = emp.id
                               and x.dependent_id is null and ${activeOnSql('x')}), false) as employee_active,
            (select o.id from endorsements o
              where o.client_id = emp.client_id and o.employee_id = emp.id and o.policy_id = p.id
                and o.status in ${OPEN_STATUS_SQL}) as open_endorsement_id
       from employees emp
       left join lateral (
         select dl.id, dl.policy_id, dl.coverage_end_date, dl.sum_insured
           from endorsements dl
           join policies dp on dp.client_id = dl.client_id and dp.id = dl.policy_id
                           and dp.status = 'POLICY_STATUS_ACTIVE'
          where dl.client_id = emp.client_id and dl.employee_id = emp.id and dl.dependent_id is null
            and dl.type = 'ENDORSEMENT_TYPE_DELETION' and dl.status = 'ENDORSEMENT_STATUS_APPROVED'
            ${req.policyId ? 'and dl.policy_id = ?' : ''}
          order by dl.decided_at desc nulls last, dl.created_at desc, dl.id desc
          limit 1) d on true
       left join policies p on p.client_id = emp.client_id and p.id = d.policy_id
       left join lateral (
         select pm.coverage_start_date, pm.endorsement_id
           from policy_members pm
          where pm.client_id = emp.client_id and pm.policy_id = d.policy_id and pm.employee_id = emp.id
            and pm.dependent_id is null and pm.coverage_end_date = d.coverage_end_date
            and pm.status in ('active', 'inactive')
          order by pm.created_at desc
          limit 1) m on true
      where emp.client_id = ? and emp.id = ?`,
    [...policyParam, today, ...policyParam, scope.clientId, req.employeeId],
  );
  return row;
}

/** Field names only, never values (the audit trail holds no personal data). */
const CREATE_AUDIT_FIELDS =
  "'{type,status,coverage_start_date,coverage_end_date,sum_insured,premium_impact}'::text[]";

/** The insert's answer: the new id, or the open endorsement that won the race (its id if still open). */
export type InsertedEndorsement = { inserted: true; id: string } | { inserted: false; openId?: string };

/**
 * Stores a PENDING endorsement and its audit entry in one statement (atomic without a
 * transaction's extra round trips). Concurrency: the partial unique index endorsements_one_open is
 * the arbiter of "one open endorsement per employee and policy"; a losing concurrent insert does
 * nothing, and only then a second read names the winner. Not deduplicated otherwise: the
 * Idempotency-Key is how a client retries safely.
 */
export async function insertEndorsement(
  scope: TenantScope,
  req: EndorsementRequest,
  decision: EndorsementDecision,
  actor: { tokenId: string | null; batchId?: string },
): Promise<InsertedEndorsement> {
  const id = newId('endorsement');
  const inserted = await scope.sql<{ id: string }>(
    `with created as (
       insert into endorsements (id, client_id, policy_id, employee_id, dependent_id, type, status,
         coverage_start_date, coverage_end_date, premium_impact, sum_insured, batch_id)
       values (?, ?, ?, ?, ?, ?, 'ENDORSEMENT_STATUS_PENDING', ?, ?, ?, ?, ?)
       on conflict (client_id, employee_id, policy_id) where status in ${OPEN_STATUS_SQL} do nothing
       returning id, client_id),
     audited as (
       insert into audit_events (client_id, entity, entity_id, action, changed_fields, actor_token_id)
       select client_id, 'endorsement', id, 'create', ${CREATE_AUDIT_FIELDS}, ? from created)
     select id from created`,
    [
      id,
      scope.clientId,
      decision.policyId,
      req.employeeId,
      req.dependentId ?? null,
      req.type,
      decision.coverageStartDate ?? req.coverageStartDate,
      decision.coverageEndDate ?? req.coverageEndDate,
      decision.premiumImpact,
      decision.sumInsured,
      actor.batchId ?? null,
      actor.tokenId,
    ],
  );
  if (inserted[0]) return { inserted: true, id };
  const [open] = await scope.sql<{ id: string }>(
    `select id from endorsements where client_id = ? and employee_id = ? and policy_id = ? and status in ${OPEN_STATUS_SQL}`,
    [scope.clientId, req.employeeId, decision.policyId],
  );
  return { inserted: false, openId: open?.id };
}

/** Records that the endorsement's workflow runs. Idempotent: the first mark stays. */
export async function markEndorsementWorkflowStarted(scope: TenantScope, id: string): Promise<void> {
  await scope.sql(
    `update endorsements set workflow_started_at = now()
      where client_id = ? and id = ? and workflow_started_at is null`,
    [scope.clientId, id],
  );
}

/** Records that these endorsements' workflows run, in one statement. Idempotent: the first mark stays. */
export async function markEndorsementWorkflowsStarted(
  scope: TenantScope,
  ids: readonly string[],
): Promise<void> {
  if (ids.length === 0) return;
  await scope.sql(
    `update endorsements set workflow_started_at = now()
      where client_id = ? and id in (select jsonb_array_elements_text(?::jsonb)) and workflow_started_at is null`,
    [scope.clientId, JSON.stringify(ids)],
  );
}

/**
 * Removes an endorsement nobody has started, with its audit entry, in one statement (atomic).
 * Concurrency: the guard (unstarted, PENDING) loses to the workflow's first activity or the
 * reconciler, whichever marks it first; false then, and the endorsement stands.
 */
export async function discardUnstartedEndorsement(scope: TenantScope, id: string): Promise<boolean> {
  const rows = await scope.sql<{ id: string }>(
    `with gone as (
       delete from endorsements
        where client_id = ? and id = ? and workflow_started_at is null
          and status = 'ENDORSEMENT_STATUS_PENDING'
        returning id, client_id),
     audited as (
       insert into audit_events (client_id, entity, entity_id, action, changed_fields, actor_token_id)
       select client_id, 'endorsement', id, 'discard', '{status}'::text[], null from gone)
     select id from gone`,
    [scope.clientId, id],
  );
  return rows.length > 0;
}

/**
 * Ties an endorsement a grant created to its grant, inside the grant item's transaction (which
 * holds the grant's lock). Idempotent: setting the same grant again changes nothing.
 */
export async function linkEndorsementToGrant(scope: TenantScope, id: string, grantId: string): Promise<void> {
  await scope.entities((em) =>
    em.nativeUpdate(EndorsementSchema, { id, clientId: scope.clientId }, { grantId }),
  );
}

/** The ids a workflow start needs, for rows of any tenant. */
export interface UnstartedEndorsement {
  id: string;
  clientId: string;
  policyId: string;
  employeeId: string;
  type: EndorsementType;
  /** The census batch that made it (its BatchId), when one did. */
  batchId: string | null;
}

/** Every tenant's endorsements still without a workflow after the grace period, oldest first. */
export async function listUnstartedEndorsements(
  system: SystemScope,
  graceMs: number,
): Promise<UnstartedEndorsement[]> {
  return system.sql<UnstartedEndorsement>(
    `select id, client_id as "clientId", policy_id as "policyId", employee_id as "employeeId", type,
            batch_id as "batchId"
       from endorsements
      where workflow_started_at is null and created_at < now() - (? * interval '1 millisecond')
      order by created_at limit 100`,
    [graceMs],
  );
}

/** An endorsement's stored status, by id (a workflow's own endorsement); undefined when gone. */
export async function readEndorsementStatusById(
  system: SystemScope,
  id: string,
): Promise<{ status: EndorsementStatus; open: boolean } | undefined> {
  const row = await system.entities((em) =>
    em.findOne(EndorsementSchema, { id }, { fields: ['status'], filters: { [TENANT_FILTER]: false } }),
  );
  return row ? { status: row.status, open: OPEN_ENDORSEMENT_STATUSES.includes(row.status) } : undefined;
}

/*
 * The workflow's statements. An endorsement's workflow knows only its endorsement's id (the
 * activities' signatures), so these take the SystemScope and key on that id; the row carries its
 * client id into the audit and outbox rows.
 */

/** What a guarded transition found: moved (and the deliveries it wrote), or the status it saw. */
export interface TransitionResult {
  moved: boolean;
  /** The status before the statement; null when there is no such endorsement. */
  status: EndorsementStatus | null;
  deliveries: string[];
}

/**
 * A guarded status change, its audit entry and its webhook event (outbox) in one statement
 * (atomic). The row is locked first so the event's old status is the one replaced. Idempotent:
 * only an open endorsement not already in `to` moves, and the final select sees the row as it was
 * before the update, so when nothing moved the caller can tell "already there" (a retry of an
 * attempt that committed, whose event is already recorded) from "in another state".
 */
export async function transitionEndorsement(
  system: SystemScope,
  id: string,
  to: EndorsementStatus,
  action: string,
  rejectionReason: string | null,
): Promise<TransitionResult | undefined> {
  const fields = rejectionReason ? "'{status,rejection_reason}'::text[]" : "'{status}'::text[]";
  const outbox = outboxSql('change', 'endorsement.status_changed');
  const [row] = await system.sql<TransitionResult>(
    `with before as (select id, status from endorsements where id = ? for update),
     moved as (
       update endorsements e
          set status = ?, rejection_reason = ?, updated_at = now(),
              decided_at = case when ? then now() else e.decided_at end,
              sent_to_insurer_at = case when ? then now() else e.sent_to_insurer_at end
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
    [
      id,
      to,
      rejectionReason,
      to !== 'ENDORSEMENT_STATUS_SENT_TO_INSURER',
      to === 'ENDORSEMENT_STATUS_SENT_TO_INSURER',
      to,
      action,
      ...outbox.params,
    ],
  );
  return row;
}

/** What the automated review reads, with the deliveries of the creation event. */
export interface ReviewFacts {
  client_id: string;
  policy_id: string;
  status: EndorsementStatus;
  type: EndorsementType;
  premium_impact: string;
  employee_status: string;
  cd_balance: string;
  deliveries: string[];
}

const reviewOutbox = outboxSql('change', 'endorsement.status_changed');
/** markEndorsementUnderReview's statement (prepared: every review sends it). */
const reviewMarkStatement = prepared(
  'endorsement_review_mark',
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
     ${reviewOutbox.sql}
     select t.client_id, t.policy_id, t.status, t.type, t.premium_impact::text as premium_impact,
            emp.status as employee_status,
            p.cd_balance::text as cd_balance, array(select id from outbox_deliveries) as deliveries
       from touched t join employees emp on emp.id = t.employee_id join policies p on p.id = t.policy_id`,
);

/**
 * Marks that the workflow runs and, with the mark, records the endorsement's creation event
 * (none -> PENDING), then reads what the review decides on: one statement. Idempotent: the mark
 * keeps its first value and the event's dedupe key makes a retry record nothing new. Undefined
 * when there is no such endorsement.
 */
export async function markEndorsementUnderReview(
  system: SystemScope,
  id: string,
): Promise<ReviewFacts | undefined> {
  const [row] = await system.sql<ReviewFacts>(reviewMarkStatement([id, ...reviewOutbox.params]));
  return row;
}

/**
 * What an insurer adapter is handed (D8, D14), or undefined when the endorsement is gone: one
 * statement with the employee's dependents (a dependent's own endorsement: that one), narrowed to
 * those the policy's coverage type covers and ordered by the domain rule (insurerSubmission).
 */
export async function readInsurerSubmission(
  system: SystemScope,
  id: string,
): Promise<InsurerSubmission | undefined> {
  const [row] = await system.sql<SubmissionRow>(
    `select e.id as "endorsementId", e.client_id as "clientId", e.policy_id as "policyId",
            p.policy_number as "policyNumber", p.coverage_type as "coverageType", i.id as "insurerId",
            i.code as "insurerCode", i.adapter, i.adapter_settings as "adapterSettings",
            e.employee_id as "employeeId", emp.employee_code as "employeeCode", e.type,
            e.coverage_start_date::text as "coverageStartDate", e.coverage_end_date::text as "coverageEndDate",
            e.sum_insured::text as "sumInsured", e.premium_impact::text as "premiumImpact",
            json_build_object('name', emp.name, 'dateOfBirth', emp.date_of_birth::text, 'gender', emp.gender)
              as employee,
            coalesce((select json_agg(json_build_object('relationship', d.relationship, 'name', d.name,
                                        'dateOfBirth', d.date_of_birth::text, 'gender', d.gender))
                        from dependents d
                       where d.client_id = e.client_id and d.employee_id = e.employee_id
                         and (e.dependent_id is null or d.id = e.dependent_id)), '[]') as dependents,
            e.dependent_id is not null as "dependentOnly"
       from endorsements e
       join policies p on p.id = e.policy_id
       join insurers i on i.id = p.insurer_id
       join employees emp on emp.id = e.employee_id
      where e.id = ?`,
    [id],
  );
  return row && insurerSubmission(row);
}
