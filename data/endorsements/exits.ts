import type { ExitMode } from '../../domain/enums.js';
import { activeOnSql } from '../member-cover.js';
import { outboxSql } from '../webhooks/outbox.js';
import type { SystemScope, TenantScope } from '../scope.js';
import { OPEN_STATUS_SQL } from '../sql.js';

/** A leaver's cover that outlasts the leaving date, with no DELETION under way (D16). */
export interface PendingExit {
  employeeId: string;
  policyId: string;
  memberStart: string;
  dateOfLeaving: string;
}

/**
 * The pending exits of the client's employees among `employeeIds`: inactive with a leaving date, on
 * an ACTIVE policy where their own cover is active on `today` (D10) and ends after that date, with no
 * open DELETION of theirs. Empty once every DELETION ending on the leaving date is under way or
 * applied: what makes the exit idempotent.
 */
export async function readPendingExits(
  scope: TenantScope,
  employeeIds: readonly string[],
  today: string,
): Promise<PendingExit[]> {
  if (employeeIds.length === 0) return [];
  return scope.sql<PendingExit>(
    `select emp.id as "employeeId", m.policy_id as "policyId",
            m.coverage_start_date::text as "memberStart", emp.date_of_leaving::text as "dateOfLeaving"
       from employees emp
       join policy_members m on m.client_id = emp.client_id and m.employee_id = emp.id
                            and m.dependent_id is null and ${activeOnSql('m')}
       join policies p on p.id = m.policy_id and p.status = 'POLICY_STATUS_ACTIVE'
      where emp.client_id = ? and emp.id in (?) and emp.status <> 'ACTIVE' and emp.date_of_leaving is not null
        and m.coverage_end_date > emp.date_of_leaving
        and not exists (select 1 from endorsements o
                         where o.client_id = emp.client_id and o.employee_id = emp.id and o.policy_id = m.policy_id
                           and o.type = 'ENDORSEMENT_TYPE_DELETION' and o.dependent_id is null
                           and o.status in ${OPEN_STATUS_SQL})
      order by emp.id, p.start_date, p.policy_number`,
    [today, scope.clientId, employeeIds],
  );
}

/** The client's choice for exits (D16): DELETIONs created at once, or proposed. */
export async function exitModeOf(scope: TenantScope): Promise<ExitMode> {
  const [row] = await scope.sql<{ exit_mode: ExitMode }>('select exit_mode from clients where id = ?', [
    scope.clientId,
  ]);
  return row?.exit_mode ?? 'automatic';
}

/** What an exit retry needs of an endorsement that just reached a final status. */
export interface SettledEndorsement {
  clientId: string;
  employeeId: string;
  /** The leaver's own DELETION: its settling is no reason to create another (a rejection would loop). */
  ownDeletion: boolean;
  /**
   * The employee has left (inactive with a leaving date) and the client's exits are automatic: only
   * then can an exit be pending (readPendingExits, exitModeOf), so only then is one looked for.
   */
  mayExit: boolean;
}

/**
 * The settled endorsement with, in the same statement, whether its employee may have an exit to
 * create: one round trip after every approval, rejection or cancel of an employee who has not left.
 */
export async function readSettledEndorsement(
  system: SystemScope,
  endorsementId: string,
): Promise<SettledEndorsement | undefined> {
  const [row] = await system.sql<SettledEndorsement>(
    `select e.client_id as "clientId", e.employee_id as "employeeId",
            (e.type = 'ENDORSEMENT_TYPE_DELETION' and e.dependent_id is null) as "ownDeletion",
            coalesce(emp.status <> 'ACTIVE' and emp.date_of_leaving is not null
                     and coalesce(c.exit_mode, 'automatic') = 'automatic', false) as "mayExit"
       from endorsements e
       left join employees emp on emp.client_id = e.client_id and emp.id = e.employee_id
       left join clients c on c.id = e.client_id
      where e.id = ? and e.status not in ${OPEN_STATUS_SQL}`,
    [endorsementId],
  );
  return row;
}

/** A pending exit whose leaving date has passed (D16): announced, and listed for operators. */
export interface OverdueExit {
  clientId: string;
  employeeId: string;
  policyId: string;
  dateOfLeaving: string;
  /** The open endorsements of the family on that policy that stand in its way (oldest first). */
  blockedBy: string[];
}

/**
 * Every client's pending exits (as readPendingExits) whose leaving date is before `today`, with
 * the open endorsements blocking them. Oldest leaving date first; at most `limit`.
 */
export async function readOverdueExits(
  system: SystemScope,
  today: string,
  filter: { clientId?: string; limit?: number } = {},
): Promise<OverdueExit[]> {
  return system.sql<OverdueExit>(
    `select emp.client_id as "clientId", emp.id as "employeeId", m.policy_id as "policyId",
            emp.date_of_leaving::text as "dateOfLeaving",
            array(select o.id from endorsements o
                   where o.client_id = emp.client_id and o.employee_id = emp.id and o.policy_id = m.policy_id
                     and o.status in ${OPEN_STATUS_SQL}
                   order by o.created_at, o.id) as "blockedBy"
       from employees emp
       join policy_members m on m.client_id = emp.client_id and m.employee_id = emp.id
                            and m.dependent_id is null and ${activeOnSql('m')}
       join policies p on p.id = m.policy_id and p.status = 'POLICY_STATUS_ACTIVE'
      where emp.status <> 'ACTIVE' and emp.date_of_leaving is not null and emp.date_of_leaving < ?::date
        and (?::text is null or emp.client_id = ?)
        and m.coverage_end_date > emp.date_of_leaving
        and not exists (select 1 from endorsements o
                         where o.client_id = emp.client_id and o.employee_id = emp.id and o.policy_id = m.policy_id
                           and o.type = 'ENDORSEMENT_TYPE_DELETION' and o.dependent_id is null
                           and o.status in ${OPEN_STATUS_SQL})
      order by emp.date_of_leaving, emp.client_id, emp.id, m.policy_id
      limit ?`,
    [today, today, filter.clientId ?? null, filter.clientId ?? null, filter.limit ?? 1000],
  );
}

/**
 * Announces one overdue exit: the `employee.exit_overdue` event and its deliveries, with an audit
 * entry, in one statement. Ids only in the payload (the leaving date stays behind the API).
 * Idempotent: the event's dedupe key (type, employee and policy, leaving date) records it once per
 * leaving date, so the daily pass announces each exit once and a retry records nothing new.
 */
export async function announceOverdueExit(
  system: SystemScope,
  exit: OverdueExit,
): Promise<{ recorded: boolean; deliveries: string[] }> {
  const outbox = outboxSql('change', 'employee.exit_overdue');
  const [row] = await system.sql<{ recorded: boolean; deliveries: string[] }>(
    `with change as (
       select ?::text as client_id, ?::text || '/' || ?::text as entity_id, ?::text as to_status,
              jsonb_build_object('employee_id', ?::text, 'policy_id', ?::text,
                'blocked_by', ?::jsonb) as data),
     ${outbox.sql},
     audited as (
       insert into audit_events (client_id, entity, entity_id, action, changed_fields)
       select e.client_id, 'employee', ?, 'exit_overdue', '{}'::text[] from outbox_event e)
     select exists (select 1 from outbox_event) as recorded,
            array(select id from outbox_deliveries) as deliveries`,
    [
      exit.clientId,
      exit.employeeId,
      exit.policyId,
      exit.dateOfLeaving,
      exit.employeeId,
      exit.policyId,
      JSON.stringify(exit.blockedBy),
      ...outbox.params,
      exit.employeeId,
    ],
  );
  return { recorded: row?.recorded ?? false, deliveries: row?.deliveries ?? [] };
}
