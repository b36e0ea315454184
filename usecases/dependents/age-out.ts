import { listAgeOutCandidates } from '../../data/dependents/age-out.js';
import { TenantScope, type SystemScope } from '../../data/scope.js';
import { today, type Clock } from '../../domain/clock.js';
import { addDays } from '../../domain/dates.js';
import {
  AGE_OUT_NOTICE_DAYS,
  agesOutAtRenewal,
  type AgeOutCandidate,
} from '../../domain/dependents/age-out.js';
import { NO_ACTOR } from '../../domain/employees.js';
import { EndorsementRefused } from '../../domain/endorsements/endorsement.js';
import { acceptEndorsement } from '../endorsements/endorsements.js';
import { WorkflowNotStarted, type StartDeps } from '../workflow-start.js';

/**
 * D16's daily age-out pass over every tenant: each covered child over its policy's age limit on the
 * policy's end date, once that date is within the notice period, gets a DELETION naming it and
 * ending its cover on that date, through D7's create (its checks, the one-open-endorsement rule).
 * Idempotent: a child with a DELETION on the policy is no longer listed, so a retry or the next day
 * creates nothing twice. Concurrency: against a racing create the open-endorsement index lets one
 * win; a refused one (e.g. another endorsement of the family open) is tried again the next day.
 */
export async function removeAgedOutChildren(
  deps: StartDeps & { clock: Clock },
  system: SystemScope,
): Promise<{ due: number; removed: number }> {
  const on = today(deps.clock);
  const due = (await listAgeOutCandidates(system, on, addDays(on, AGE_OUT_NOTICE_DAYS))).filter(
    agesOutAtRenewal,
  );
  let removed = 0;
  for (const child of due) if (await requestRemoval(deps, system, child)) removed += 1;
  return { due: due.length, removed };
}

async function requestRemoval(
  deps: StartDeps & { clock: Clock },
  system: SystemScope,
  child: AgeOutCandidate,
): Promise<boolean> {
  try {
    await acceptEndorsement(
      deps,
      TenantScope.of(system.em, child.clientId),
      {
        employeeId: child.employeeId,
        policyId: child.policyId,
        dependentId: child.dependentId,
        type: 'ENDORSEMENT_TYPE_DELETION',
        coverageStartDate: child.memberStart,
        coverageEndDate: child.policyEnd,
      },
      NO_ACTOR,
    );
    return true;
  } catch (err) {
    if (err instanceof EndorsementRefused || err instanceof WorkflowNotStarted) return false;
    throw err;
  }
}
