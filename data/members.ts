import type { Gender, MemberStatus } from '../domain/enums.js';
import {
  contains,
  readPage,
  type CursorCodec,
  type KeysetQuery,
  type Page,
  type PageRequest,
} from './paging.js';
import type { TenantScope } from './scope.js';
import { memberStatusOnSql } from './member-cover.js';
import { KEPT_MEMBER_COUNT_SQL } from './policy-tallies.js';
import { memberStatusOn } from '../domain/member-cover.js';

/**
 * Columns of a member row (spec 2.3); `pm` is the member row, `e` its employee. employee_name is the
 * denormalised sort key, so the name shown, searched and ordered by is one and the same.
 */
const MEMBER_COLUMNS = `pm.id, pm.client_id, pm.policy_id, pm.employee_id, pm.dependent_id, pm.endorsement_id,
  pm.insurer_member_id, pm.coverage_start_date, pm.coverage_end_date, pm.premium_amount, pm.sum_insured,
  pm.remaining_sum_insured, pm.status, pm.employee_name, e.email as employee_email,
  e.date_of_birth as employee_dob, e.gender as employee_gender, e.department as employee_department,
  e.designation as employee_designation`;

const MEMBER_EMPLOYEE_JOIN = 'join employees e on e.id = pm.employee_id and e.client_id = pm.client_id';

export interface MemberRow {
  id: string;
  client_id: string;
  policy_id: string;
  employee_id: string;
  dependent_id: string | null;
  endorsement_id: string | null;
  insurer_member_id: string | null;
  coverage_start_date: string;
  coverage_end_date: string;
  premium_amount: string | null;
  sum_insured: string | null;
  remaining_sum_insured: string | null;
  status: MemberStatus;
  employee_name: string;
  employee_email: string;
  employee_dob: string;
  employee_gender: Gender;
  employee_department: string;
  employee_designation: string;
}

export interface MemberFilter {
  /** The business date the statuses are as of (D10: cover ended by date reads inactive). */
  today: string;
  employeeId?: string | undefined;
  status?: MemberStatus | undefined;
  /** Case-insensitive substring of the employee's name or official email. */
  search?: string | undefined;
}

/**
 * D5: employee name ignoring case, employee, the employee row before dependents, then id. The cursor
 * seals the same lower-case name the order uses: the stored `employee_name_key` (index
 * policy_members_page_keyed; a plain column, so the keyset stays an index range under row-level
 * security, migration 0009). Cursors issued before carry the same value.
 */
export function membersQuery(clientId: string, policyId: string, f: MemberFilter): KeysetQuery {
  const where = ['pm.client_id = ?', 'pm.policy_id = ?'];
  const params: unknown[] = [clientId, policyId];
  if (f.employeeId) {
    where.push('pm.employee_id = ?');
    params.push(f.employeeId);
  }
  if (f.status) {
    // D10: the status as of today, as the rows show it (cover ended by date is inactive).
    where.push(`${memberStatusOnSql('pm')} = ?`);
    params.push(f.today, f.status);
  }
  if (f.search) {
    // Matched on the employee, so an employee's dependents come with it; one pass over employees,
    // once per statement (an array, so the members are then found by index: under row-level
    // security a semi-join on a non-leakproof ILIKE was planned as a walk over every member).
    where.push(`pm.employee_id = any(array(
      select se.id from employees se where se.client_id = ? and (se.name ilike ? or se.email ilike ?)))`);
    params.push(clientId, contains(f.search), contains(f.search));
  }
  return {
    scope: `members:${clientId}:${policyId}`,
    from: 'policy_members pm',
    where: where.join(' and '),
    params,
    select: MEMBER_COLUMNS,
    join: MEMBER_EMPLOYEE_JOIN,
    key: [
      { sql: 'pm.employee_name_key', type: 'text' },
      { sql: 'pm.employee_id', type: 'text' },
      { sql: 'pm.member_rank', type: 'smallint' },
      { sql: 'pm.id', type: 'text' },
    ],
    // The policy's existence rides along in the same round trip.
    extra: {
      columns: { policy_found: 'exists(select 1 from policies where client_id = ? and id = ?)' },
      params: [clientId, policyId],
    },
    // Unfiltered, the total is the policy's kept count (data/policy-tallies.ts), not a read of every member.
    count:
      !f.employeeId && !f.status && !f.search
        ? { sql: KEPT_MEMBER_COUNT_SQL, params: [clientId, policyId] }
        : undefined,
  };
}

/** One page of a policy's members (D5) and whether the policy is the client's, in one round trip (readPage). */
export async function listPolicyMembers(
  scope: TenantScope,
  codec: CursorCodec,
  policyId: string,
  filter: MemberFilter,
  req: PageRequest,
): Promise<{ policyFound: boolean; page: Page<MemberRow> }> {
  const page = await readPage<MemberRow>(scope, codec, membersQuery(scope.clientId, policyId, filter), req);
  // The page's rows are fresh copies: set each status in place rather than copying every row again.
  for (const row of page.rows) row.status = memberStatusOn(row, filter.today);
  return { policyFound: page.extra.policy_found === true, page };
}

/** Keeps the denormalised sort key of an employee's member rows in step with its name (in the caller's transaction). */
export async function renameMembersOfEmployee(
  scope: TenantScope,
  employeeId: string,
  name: string,
): Promise<void> {
  await scope.sql(
    'update policy_members set employee_name = ?, updated_at = now() where client_id = ? and employee_id = ?',
    [name, scope.clientId, employeeId],
  );
}
