import { ApplicationFailure } from '@temporalio/common';
import { today } from '../domain/clock.js';
import { readEndorsementStatusById } from '../data/endorsements/endorsements.js';
import { readGrantSettlement, type StoredGrantItem } from '../data/grants/grants.js';
import { SystemScope } from '../data/scope.js';
import type { EndorsementStatus, GrantStatus } from '../domain/enums.js';
import { FINAL_GRANT_STATUSES, grantOutcome } from '../domain/grants/grant.js';
import { startDeliveries } from '../usecases/webhooks/deliveries.js';
import { workflowInput } from '../usecases/endorsements/endorsements.js';
import { makeGrantItem, reconcileUnstartedGrants, takeOverGrant } from '../usecases/grants/grants.js';
import { moveGrant } from '../usecases/workflow-steps.js';
import { GRANT_GONE, GRANT_STATE_CONFLICT, type GrantItem } from '../workflows/grant/contract.js';
import type { ActivityDeps } from './deps.js';

const gone = (id: string) =>
  ApplicationFailure.create({ type: GRANT_GONE, message: `grant ${id} does not exist`, category: 'BENIGN' });

/**
 * The grant workflow's activities. Each is idempotent under retry: the target policies are a read,
 * each policy's endorsement and its grant_items row (keyed by grant and policy) commit together
 * under the grant row's lock, and status changes are guarded UPDATEs that treat "already there"
 * as done.
 */
export function createGrantActivities(deps: ActivityDeps) {
  /** The workflow knows its grant by id only: statements key on it, across tenants. */
  const system = () => SystemScope.of(deps.orm.em);

  /** Starts the webhook deliveries a committed change wrote (best effort; the sweeper backs it up). */
  const deliver = (deliveryIds: readonly string[]) => startDeliveries(deps, deps.orm.em, deliveryIds);

  /**
   * A guarded status change with its audit entry and webhook event (usecases/workflow-steps.ts):
   * already there is done, gone and any other status fail the activity.
   */
  async function transition(id: string, from: readonly GrantStatus[], to: GrantStatus): Promise<void> {
    const outcome = await moveGrant(deps, system(), id, from, to);
    if (outcome.kind === 'done') return;
    if (outcome.kind === 'gone') throw gone(id);
    throw ApplicationFailure.create({
      type: GRANT_STATE_CONFLICT,
      message: `grant ${id} is ${outcome.status}, cannot move to ${to}`,
    });
  }

  const childOf = (clientId: string, employeeId: string, policyId: string, item: StoredGrantItem) =>
    item.outcome === 'ENDORSEMENT' && item.endorsement_id && item.type
      ? workflowInput(
          { id: item.endorsement_id, clientId, policyId, employeeId, type: item.type },
          deps.config,
        )
      : null;

  return {
    /**
     * D9: the grant's target policies, in a stable order. With policy_id, that policy only (if it
     * is no longer active its item records that); without, every ACTIVE policy of the client
     * overlapping the period. Marks the grant as taken over by its workflow (no discard after),
     * and with that mark records its creation event (none -> PENDING); a retry records nothing new.
     */
    async resolveGrantPolicies(grantId: string): Promise<string[]> {
      const taken = await takeOverGrant(system(), grantId);
      if (!taken) throw gone(grantId);
      await deliver(taken.deliveries);
      return taken.policyIds;
    },

    /**
     * One policy of the grant: its endorsement (through the endorsement use case, so D7's rules
     * apply) or the reason it was skipped or failed, with its grant_items row, in one transaction.
     * The grant row's lock serialises attempts; a retry after a commit returns the stored item.
     */
    async createGrantEndorsement(grantId: string, policyId: string): Promise<GrantItem> {
      const made = await makeGrantItem(system(), grantId, policyId, today(deps.clock));
      if (!made) throw gone(grantId);
      const { grant: g, item } = made;
      return {
        policyId,
        outcome: item.outcome,
        endorsementId: item.endorsement_id,
        detail: item.detail,
        child: childOf(g.client_id, g.employee_id, policyId, item),
      };
    },

    async markGrantInProgress(grantId: string): Promise<void> {
      await transition(grantId, ['GRANT_STATUS_PENDING'], 'GRANT_STATUS_IN_PROGRESS');
    },

    /** For an endorsement whose workflow was started elsewhere: its stored status. */
    async grantEndorsementStatus(
      endorsementId: string,
    ): Promise<{ status: EndorsementStatus; open: boolean }> {
      const row = await readEndorsementStatusById(system(), endorsementId);
      if (!row) throw gone(endorsementId);
      return row;
    },

    /**
     * Every endorsement of the grant is settled: derives the final status from the stored items
     * and endorsements, and writes it. Returns the stored final status (a retry after the commit
     * finds it there).
     */
    async completeGrant(grantId: string): Promise<GrantStatus> {
      const stored = await readGrantSettlement(system(), grantId);
      if (!stored) throw gone(grantId);
      if (FINAL_GRANT_STATUSES.includes(stored.status)) return stored.status;
      const status = grantOutcome(stored.items);
      await transition(grantId, ['GRANT_STATUS_PENDING', 'GRANT_STATUS_IN_PROGRESS'], status);
      return status;
    },

    /** Starts the workflow of every grant still without one after the grace period. */
    async reconcileUnstartedGrants(input: { graceMs: number }): Promise<{ started: number }> {
      const started = await reconcileUnstartedGrants(deps, system(), input.graceMs);
      if (started > 0) deps.logger.info({ started }, 'reconciled unstarted grants');
      return { started };
    },
  };
}

export type GrantActivities = ReturnType<typeof createGrantActivities>;
