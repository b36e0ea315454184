import type { SystemScope, TenantScope } from './scope.js';
import type { Sql } from './sql.js';

/*
 * D10's rule in SQL (domain/member-cover.ts coverEndedBy / memberStatusOn): a member row's cover has
 * ended once its coverage_end_date is before today. Each fragment takes one `?::date` placeholder,
 * today's business date; `pm` is the alias of the policy_members row.
 */

/** The row's cover ended before `?` (today). */
export const coverEndedSql = (pm: string): string => `${pm}.coverage_end_date < ?::date`;

/**
 * The row is active on `?` (today). Stated on the stored status so the partial index
 * policy_members_one_active still serves it; PostgreSQL reads `not (a < b)` as `a >= b`.
 */
export const activeOnSql = (pm: string): string => `(${pm}.status = 'active' and not (${coverEndedSql(pm)}))`;

/** The status a client sees on `?` (today). */
export const memberStatusOnSql = (pm: string): string =>
  `(case when ${pm}.status = 'active' and ${coverEndedSql(pm)} then 'inactive' else ${pm}.status end)`;

/**
 * Turns inactive every active row matching `where` whose cover ended before today, with one audit
 * entry per row (system change: no token), in one statement. Idempotent: a row already inactive is
 * not matched again. Concurrency: a row an approval holds locked is re-checked once it commits.
 */
async function endLapsed(
  sql: Sql,
  where: string,
  params: readonly unknown[],
  today: string,
): Promise<number> {
  const [row] = await sql<{ ended: number }>(
    `with ended as (
       update policy_members pm set status = 'inactive', updated_at = now()
        where pm.status = 'active' and ${coverEndedSql('pm')} ${where}
        returning pm.id, pm.client_id),
     audited as (
       insert into audit_events (client_id, entity, entity_id, action, changed_fields, actor_token_id)
       select client_id, 'policy_member', id, 'end_cover', '{status}'::text[], null from ended)
     select count(*)::int as ended from ended`,
    [today, ...params],
  );
  return row?.ended ?? 0;
}

/** Every tenant's rows whose cover ended before `today` turn inactive (the daily pass). */
export function endLapsedCoverOfAllClients(system: SystemScope, today: string): Promise<number> {
  return endLapsed(system.sql, '', [], today);
}

/**
 * One person's rows on one policy whose cover ended before `today` turn inactive, inside the caller's
 * transaction: run before an approval writes that person's rows, so a new enrolment is not refused
 * by policy_members_one_active because of cover that has ended by date.
 */
export function endLapsedCoverOf(
  tx: TenantScope,
  policyId: string,
  employeeId: string,
  today: string,
): Promise<number> {
  return endLapsed(
    tx.sql,
    'and pm.client_id = ? and pm.policy_id = ? and pm.employee_id = ?',
    [tx.clientId, policyId, employeeId],
    today,
  );
}
