import type { CoverageType, PolicyType, Relationship } from '../domain/enums.js';
import type { HealthCardData } from '../domain/health-card.js';
import { REFERENCE_JOINS } from './reference.js';
import { activeOnSql } from './member-cover.js';
import type { SystemScope, TenantScope } from './scope.js';

/**
 * Coverage (D10): a policy covers an employee today when the employee's own member row on it is
 * active today (data/member-cover.ts: its cover has not ended by date), has started (both ends
 * inclusive, Asia/Kolkata business date) and the policy itself is ACTIVE (spec 4.11: an inactive or
 * suspended policy covers no one).
 */
const COVERS_TODAY = `${activeOnSql('pm')} and pm.coverage_start_date <= ?::date
  and pol.status = 'POLICY_STATUS_ACTIVE'`;

/** The member row's policy and its display names; every joined row is the member's own client's (D1). */
const POLICY_REFERENCE_JOINS = `join policies pol on pol.id = pm.policy_id and pol.client_id = pm.client_id
  ${REFERENCE_JOINS}`;

/** A coverage row as PostgreSQL returns it: numeric as exact strings, dates as YYYY-MM-DD. */
export interface CoverageRow {
  policy_id: string;
  policy_number: string;
  insurer_name: string;
  insurer_logo: string;
  product_name: string;
  category: string;
  tpa_name: string;
  type: PolicyType;
  coverage_type: CoverageType;
  start_date: string;
  end_date: string;
  coverage_start_date: string;
  coverage_end_date: string;
  sum_insured: string;
  network_hospital_url: string | null;
  uhid: string | null;
}

/**
 * The employee's coverage entries today, in one round trip: the employee row left-joined to its covering
 * member rows, so "unknown employee" (no row) and "known but not covered" (one row of nulls) are told apart.
 * Served by policy_members_employee (client_id, employee_id).
 */
export async function findCoverage(
  scope: TenantScope,
  employeeId: string,
  day: string,
): Promise<{ employeeFound: boolean; entries: CoverageRow[] }> {
  const rows = await scope.sql<CoverageRow & { covered: boolean }>(
    `select pm.id is not null as covered, pol.id as policy_id, pol.policy_number, i.name as insurer_name,
       i.logo_url as insurer_logo, pr.name as product_name, pr.category, t.name as tpa_name, pol.type,
       pol.coverage_type, pol.start_date, pol.end_date, pm.coverage_start_date, pm.coverage_end_date,
       coalesce(pm.sum_insured, pol.default_sum_insured) as sum_insured,
       coalesce(pol.network_hospital_url, i.network_hospital_url) as network_hospital_url, pm.uhid
     from employees e
     left join (policy_members pm ${POLICY_REFERENCE_JOINS})
       on pm.client_id = e.client_id and pm.employee_id = e.id and pm.dependent_id is null and ${COVERS_TODAY}
     where e.client_id = ? and e.id = ?
     order by pol.start_date, pol.policy_number`,
    [day, day, scope.clientId, employeeId],
  );
  return {
    employeeFound: rows.length > 0,
    entries: rows.filter((row) => row.covered).map(({ covered: _, ...entry }) => entry),
  };
}

/** Why an employee known to the client is not covered today, when the reason is on its way. */
export type UpcomingCover =
  | { kind: 'starts'; policy_id: string; coverage_start_date: string }
  | { kind: 'open_addition'; endorsement_id: string; status: string }
  | null;

/**
 * For the "not covered" answer only (never on a covered read): the employee's earliest cover that has
 * not started yet on an ACTIVE policy, else their oldest ADDITION still waiting for the insurer. One
 * round trip; served by policy_members_employee and endorsements_one_open.
 */
export async function findUpcomingCover(
  scope: TenantScope,
  employeeId: string,
  day: string,
): Promise<UpcomingCover> {
  const rows = await scope.sql<{ kind: 'starts' | 'open_addition'; id: string; detail: string }>(
    `(select 'starts' as kind, pm.policy_id as id, pm.coverage_start_date::text as detail, 0 as rank
        from policy_members pm join policies pol on pol.id = pm.policy_id and pol.client_id = pm.client_id
       where pm.client_id = ? and pm.employee_id = ? and pm.dependent_id is null and ${activeOnSql('pm')}
         and pm.coverage_start_date > ?::date and pol.status = 'POLICY_STATUS_ACTIVE'
       order by pm.coverage_start_date limit 1)
     union all
     (select 'open_addition', e.id, e.status, 1
        from endorsements e
       where e.client_id = ? and e.employee_id = ? and e.dependent_id is null
         and e.type = 'ENDORSEMENT_TYPE_ADDITION'
         and e.status in ('ENDORSEMENT_STATUS_PENDING', 'ENDORSEMENT_STATUS_SENT_TO_INSURER')
       order by e.created_at limit 1)
     order by rank limit 1`,
    [scope.clientId, employeeId, day, day, scope.clientId, employeeId],
  );
  const row = rows[0];
  if (!row) return null;
  return row.kind === 'starts'
    ? { kind: 'starts', policy_id: row.id, coverage_start_date: row.detail }
    : { kind: 'open_addition', endorsement_id: row.id, status: row.detail };
}

/**
 * The client an employee belongs to, and that client's secret version (health-card links are bound
 * to it), read across tenants: only for a request that carries no token but a signed path (the
 * health-card link), which names the tenant through its employee. Everything read after it goes
 * through that client's TenantScope.
 */
export async function findEmployeeClientAcrossTenants(
  system: SystemScope,
  employeeId: string,
): Promise<{ clientId: string; secretVersion: number } | null> {
  const [row] = await system.sql<{ client_id: string; secret_version: number }>(
    'select e.client_id, c.secret_version from employees e join clients c on c.id = e.client_id where e.id = ?',
    [employeeId],
  );
  return row ? { clientId: row.client_id, secretVersion: row.secret_version } : null;
}

interface CardRow {
  dependent_id: string | null;
  person_name: string;
  relationship: Relationship | null;
  employee_name: string;
  employee_code: string;
  policy_number: string;
  insurer_name: string;
  tpa_name: string;
  product_name: string;
  category: string;
  uhid: string | null;
  sum_insured: string;
  coverage_start_date: string;
  coverage_end_date: string;
  start_date: string;
  end_date: string;
}

/**
 * The health card of an employee on one policy today: the employee's own covering row plus the dependents
 * whose rows on that policy are active and cover today. null when the employee is not covered on it.
 */
export async function findHealthCard(
  scope: TenantScope,
  employeeId: string,
  policyId: string,
  day: string,
): Promise<HealthCardData | null> {
  const rows = await scope.sql<CardRow>(
    `select pm.dependent_id, coalesce(d.name, e.name) as person_name, d.relationship, e.name as employee_name,
       e.employee_code, pol.policy_number, i.name as insurer_name, t.name as tpa_name, pr.name as product_name,
       pr.category, pm.uhid, coalesce(pm.sum_insured, pol.default_sum_insured) as sum_insured,
       pm.coverage_start_date, pm.coverage_end_date, pol.start_date, pol.end_date
     from policy_members pm
     join employees e on e.id = pm.employee_id and e.client_id = pm.client_id
     ${POLICY_REFERENCE_JOINS}
     left join dependents d on d.id = pm.dependent_id and d.client_id = pm.client_id
     where pm.client_id = ? and pm.employee_id = ? and pm.policy_id = ? and ${COVERS_TODAY}
     order by pm.member_rank, d.relationship, person_name, pm.id`,
    [scope.clientId, employeeId, policyId, day, day],
  );
  const own = rows.find((row) => row.dependent_id === null);
  if (!own) return null;
  return {
    memberName: own.employee_name,
    employeeCode: own.employee_code,
    policyNumber: own.policy_number,
    insurerName: own.insurer_name,
    tpaName: own.tpa_name,
    productName: own.product_name,
    category: own.category,
    uhid: own.uhid,
    sumInsured: own.sum_insured,
    coverageStartDate: own.coverage_start_date,
    coverageEndDate: own.coverage_end_date,
    policyStartDate: own.start_date,
    policyEndDate: own.end_date,
    coveredPersons: rows.map((row) => ({ name: row.person_name, relationship: row.relationship })),
  };
}
