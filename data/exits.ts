import type { ExitMode } from '../domain/enums.js';
import { activeOnSql } from './member-cover.js';
import type { TenantScope } from './scope.js';
import { OPEN_STATUS_SQL } from './sql.js';

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
