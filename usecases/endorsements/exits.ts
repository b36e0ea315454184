import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  announceOverdueExit,
  exitModeOf,
  readOverdueExits,
  readPendingExits,
  readSettledEndorsement,
  type OverdueExit,
  type PendingExit,
} from '../../data/endorsements/exits.js';
import { TenantScope, type SystemScope } from '../../data/scope.js';
import { today, type Clock } from '../../domain/clock.js';
import { EndorsementRefused } from '../../domain/endorsements/endorsement.js';
import { NO_ACTOR, type Actor } from '../../domain/employees.js';
import { endorsementWorkflowId, exitWaitingSignal } from '../../workflows/endorsement/contract.js';
import { acceptEndorsement } from './endorsements.js';
import { WorkflowNotStarted, type StartDeps } from '../workflow-start.js';

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

/**
 * D16: an endorsement reached a final status (approved, rejected, cancelled); if it was what kept
 * a leaver's automatic exit from being created (the one-open-endorsement rule: a dependent's
 * ADDITION, a MODIFICATION), the exit is tried again now. Runs after the status change committed,
 * from the activity that made it. Idempotent as processExits: a retried activity finds the exit
 * under way and creates nothing. The leaver's own DELETION settling retries nothing, so an insurer's
 * rejection of it is not answered by the same DELETION again (the exit stays pending and listed,
 * and is announced once past its date).
 */
export async function retryExitsAfterSettling(
  deps: StartDeps & { clock: Clock },
  system: SystemScope,
  endorsementId: string,
): Promise<void> {
  const settled = await readSettledEndorsement(system, endorsementId);
  // An employee who has not left (or a client whose exits are proposed) has no exit to create.
  if (!settled || settled.ownDeletion || !settled.mayExit) return;
  const scope = TenantScope.of(system.em, settled.clientId);
  await processExits(deps, scope, [settled.employeeId], NO_ACTOR);
}

/**
 * D16: every exit still pending after its leaving date is announced (`employee.exit_overdue`,
 * once per exit and leaving date, see announceOverdueExit), whatever the client's exit mode: the
 * leaver is still covered and paid for. Each open endorsement in the exit's way is told too, so the
 * Web UI's page of its workflow names the waiting exit and its day (exitWaitingSignal). Returns the
 * exits announced now and the deliveries to start.
 *
 * Idempotency: the announcement is recorded once per leaving date; the signal is sent on every
 * pass for every overdue exit still blocked (the workflow keeps one line per leaver and policy, so a
 * repeat changes nothing), which also makes up a signal lost to a retry after the announcement
 * committed. A blocker that finished meanwhile has no workflow to tell: skipped (its settling retries
 * the exit itself). A failure to reach Temporal fails the activity, which retries the whole pass.
 */
export async function announceOverdueExits(
  deps: { temporal: Client },
  system: SystemScope,
  today: string,
): Promise<{ announced: OverdueExit[]; deliveries: string[] }> {
  const announced: OverdueExit[] = [];
  const deliveries: string[] = [];
  for (const exit of await readOverdueExits(system, today)) {
    const outcome = await announceOverdueExit(system, exit);
    if (outcome.recorded) announced.push(exit);
    deliveries.push(...outcome.deliveries);
    for (const endorsementId of exit.blockedBy) await tellBlocker(deps.temporal, endorsementId, exit);
  }
  return { announced, deliveries };
}

async function tellBlocker(temporal: Client, endorsementId: string, exit: OverdueExit): Promise<void> {
  try {
    await temporal.workflow.getHandle(endorsementWorkflowId(endorsementId)).signal(exitWaitingSignal, {
      employeeId: exit.employeeId,
      policyId: exit.policyId,
      dateOfLeaving: exit.dateOfLeaving,
    });
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
  }
}
