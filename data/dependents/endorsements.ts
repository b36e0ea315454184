import type { CoveringPolicy, DependentCandidate } from '../../domain/dependents/endorsements.js';
import type { EndorsementRequest } from '../../domain/endorsements/endorsement.js';
import { activeOnSql } from '../member-cover.js';
import type { TenantScope } from '../scope.js';
import { OPEN_STATUS_SQL } from '../sql.js';

/**
 * D16's one read before a dependent's endorsement: the employee, the dependent (null fields when it
 * is not theirs), the candidate policies (ACTIVE; the requested one only with policy_id), on each the
 * employee's and the dependent's cover on `today` (D10), any open endorsement of the family, and the
 * employee's other dependents (the family rules). No row: no such employee.
 */
export async function readDependentCandidates(
  scope: TenantScope,
  req: EndorsementRequest & { dependentId: string },
  today: string,
): Promise<DependentCandidate[]> {
  return scope.sql<DependentCandidate>(
    `select p.id, p.policy_number, p.status, p.start_date::text as start_date, p.end_date::text as end_date,
            p.slabs, p.coverage_type, coalesce(p.eligibility, '{}'::jsonb) as eligibility,
            emp.employee_code, (select i.code from insurers i where i.id = p.insurer_id) as insurer_code,
            m.policy_id is not null as employee_active,
            coalesce(m.sum_insured, dm.sum_insured)::text as member_sum_insured,
            m.coverage_start_date::text as member_start, m.coverage_end_date::text as member_end,
            dm.policy_id is not null as dependent_active, dm.coverage_end_date::text as dependent_end,
            (select o.id from endorsements o
              where o.client_id = emp.client_id and o.employee_id = emp.id and o.policy_id = p.id
                and o.status in ${OPEN_STATUS_SQL}) as open_endorsement_id,
            d.relationship, d.date_of_birth::text as date_of_birth, d.event_date::text as event_date,
            coalesce((select json_agg(json_build_object('relationship', o.relationship,
                                                        'dateOfBirth', o.date_of_birth::text))
                        from dependents o
                       where o.client_id = emp.client_id and o.employee_id = emp.id and o.id <> d.id),
                     '[]') as others
       from employees emp
       left join dependents d on d.client_id = emp.client_id and d.employee_id = emp.id and d.id = ?
       left join policies p on p.client_id = emp.client_id and p.status = 'POLICY_STATUS_ACTIVE'
                           ${req.policyId ? 'and p.id = ?' : ''}
       left join policy_members m on m.policy_id = p.id and m.employee_id = emp.id
                                 and m.dependent_id is null and ${activeOnSql('m')}
       left join policy_members dm on dm.policy_id = p.id and dm.employee_id = emp.id
                                  and dm.dependent_id = d.id and ${activeOnSql('dm')}
      where emp.client_id = ? and emp.id = ?`,
    [req.dependentId, ...(req.policyId ? [req.policyId] : []), today, today, scope.clientId, req.employeeId],
  );
}

/** The ACTIVE policies the employee is covered on `today` (D10), for a dependent joining them. */
export async function readCoveringPolicies(
  scope: TenantScope,
  employeeId: string,
  today: string,
): Promise<CoveringPolicy[]> {
  return scope.sql<CoveringPolicy>(
    `select p.id, p.coverage_type, coalesce(p.eligibility, '{}'::jsonb) as eligibility,
            m.coverage_start_date::text as member_start, m.coverage_end_date::text as member_end
       from policy_members m
       join policies p on p.id = m.policy_id and p.client_id = m.client_id
      where m.client_id = ? and m.employee_id = ? and m.dependent_id is null and ${activeOnSql('m')}
        and p.status = 'POLICY_STATUS_ACTIVE'
      order by p.start_date, p.policy_number`,
    [scope.clientId, employeeId, today],
  );
}
