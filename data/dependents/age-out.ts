import type { AgeOutCandidate } from '../../domain/dependents/age-out.js';
import { activeOnSql } from '../member-cover.js';
import type { SystemScope } from '../scope.js';

/**
 * Every tenant's covered children (cover active on `today`, D10, and lasting to the policy's end) on
 * ACTIVE policies ending between `today` and `lastEnd`, with no DELETION naming them on that policy
 * in any status: an open or applied one is the removal itself, and a rejected or cancelled one was a
 * person's decision the pass does not overrule. What keeps the pass idempotent.
 */
export async function listAgeOutCandidates(
  system: SystemScope,
  today: string,
  lastEnd: string,
): Promise<AgeOutCandidate[]> {
  return system.sql<AgeOutCandidate>(
    `select p.client_id as "clientId", p.id as "policyId", dm.employee_id as "employeeId",
            d.id as "dependentId", d.date_of_birth::text as "dateOfBirth",
            dm.coverage_start_date::text as "memberStart", p.end_date::text as "policyEnd",
            coalesce(p.eligibility, '{}'::jsonb) as eligibility
       from policies p
       join policy_members dm on dm.client_id = p.client_id and dm.policy_id = p.id
                             and dm.dependent_id is not null and ${activeOnSql('dm')}
       join dependents d on d.client_id = dm.client_id and d.id = dm.dependent_id and d.relationship = 'CHILD'
      where p.status = 'POLICY_STATUS_ACTIVE' and p.end_date between ? and ?
        and dm.coverage_end_date >= p.end_date
        and not exists (select 1 from endorsements o
                         where o.client_id = p.client_id and o.policy_id = p.id and o.dependent_id = d.id
                           and o.type = 'ENDORSEMENT_TYPE_DELETION')
      order by p.id, dm.employee_id, d.id`,
    [today, today, lastEnd],
  );
}
