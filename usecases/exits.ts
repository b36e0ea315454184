import { exitModeOf, readPendingExits, type PendingExit } from '../data/exits.js';
import type { TenantScope } from '../data/scope.js';
import { today, type Clock } from '../domain/clock.js';
import { EndorsementRefused } from '../domain/endorsements.js';
import type { Actor } from '../domain/employees.js';
import { acceptEndorsement, WorkflowNotStarted, type StartDeps } from './endorsements.js';

/**
 * D16: the exits of employees just set inactive with a leaving date. In the client's `automatic`
 * mode each pending exit becomes a DELETION ending on the leaving date; in `proposed` mode they stay
 * listed (Get Employee's `pending_exits`) until the client creates them. Idempotent: a pending exit
 * is cover outlasting the leaving date with no open DELETION, so a second call (the same status set
 * twice, a retry) finds nothing new; one refused or not started stays pending, nothing half-done.
 * Concurrency: two racing calls both read it pending; the one-open-endorsement index lets one win.
 */
export async function processExits(
  deps: StartDeps & { clock: Clock },
  scope: TenantScope,
  employeeIds: readonly string[],
  actor: Actor,
): Promise<void> {
  if (employeeIds.length === 0 || (await exitModeOf(scope)) !== 'automatic') return;
  for (const exit of await readPendingExits(scope, employeeIds, today(deps.clock))) {
    await endCover(deps, scope, exit, actor);
  }
}

async function endCover(
  deps: StartDeps & { clock: Clock },
  scope: TenantScope,
  exit: PendingExit,
  actor: Actor,
): Promise<void> {
  try {
    await acceptEndorsement(
      deps,
      scope,
      {
        employeeId: exit.employeeId,
        policyId: exit.policyId,
        type: 'ENDORSEMENT_TYPE_DELETION',
        coverageStartDate: exit.memberStart,
        coverageEndDate: exit.dateOfLeaving,
      },
      actor,
    );
  } catch (err) {
    // Left pending (listed by Get Employee) for the client to see and create.
    if (!(err instanceof EndorsementRefused) && !(err instanceof WorkflowNotStarted)) throw err;
  }
}

/** What Get Employee lists as `pending_exits`. */
export const pendingExitsOf = (deps: { clock: Clock }, scope: TenantScope, employeeId: string) =>
  readPendingExits(scope, [employeeId], today(deps.clock));
