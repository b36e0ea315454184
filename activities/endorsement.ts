import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { readInsurerSubmission, type ReviewFacts } from '../data/endorsements/endorsements.js';
import type { EndorsementCost } from '../data/cd-account/account.js';
import { readEndorsementInsurer } from '../data/insurer-exchange/sla.js';
import type { InsurerAssignment } from '../domain/insurer-exchange/decisions.js';
import type { InsurerIds } from '../data/endorsements/approval.js';
import { SystemScope } from '../data/scope.js';
import { today } from '../domain/clock.js';
import { reviewRejection } from '../domain/endorsements/endorsement.js';
import { startDeliveries } from '../usecases/webhooks/deliveries.js';
import type { EndorsementStatus } from '../domain/enums.js';
import type { InsurerSubmission } from '../adapters/types.js';
import {
  applyEndorsementApproval,
  reconcileUnstartedEndorsements,
} from '../usecases/endorsements/endorsements.js';
import { reconcileUnstartedCensusBatches } from '../usecases/census/census.js';
import { retryExitsAfterSettling } from '../usecases/endorsements/exits.js';
import {
  announceSlaBreach,
  beginReview,
  moveEndorsement,
  queueFileWithdrawal,
  routeAfterReview,
  type RouteTaken,
  type StepOutcome,
} from '../usecases/workflow-steps.js';
import {
  holdEndorsementFunds,
  releaseEndorsementHold,
  wakeFundedEndorsements,
  type CdAftermath,
} from '../usecases/cd-account/account.js';
import {
  ENDORSEMENT_GONE,
  ENDORSEMENT_STATE_CONFLICT,
  REVIEW_REJECTED,
} from '../workflows/endorsement/contract.js';
import { sendInsurerDecision } from '../adapters/decisions.js';
import type { CdHoldAnswer, DecisionAnswer, InsurerDecision } from '../workflows/endorsement/contract.js';
import { heartbeating } from './heartbeat.js';
import { reportSubmissionFailure } from './submission-failure.js';
import type { ActivityDeps } from './deps.js';

/**
 * A line through the activity's context logger, which adds workflowId, activityType and attempt;
 * the endorsement id is added here. Ids only, never personal data. Nothing outside an activity.
 */
function note(message: string, meta: Record<string, unknown>): void {
  let context: Context;
  try {
    context = Context.current();
  } catch {
    return;
  }
  context.log.info(message, meta);
}

/** Business outcomes, not faults: BENIGN keeps them out of the worker's error logs. */
const gone = (id: string) =>
  ApplicationFailure.create({
    type: ENDORSEMENT_GONE,
    message: `endorsement ${id} does not exist`,
    category: 'BENIGN',
  });
const reviewRejected = (message: string) =>
  ApplicationFailure.create({ type: REVIEW_REJECTED, message, category: 'BENIGN' });

/**
 * The endorsement workflow's activities. Each one is idempotent under retry: status changes are
 * guarded UPDATEs (`where status = expected`) that treat "already there" as done, member rows and
 * the ledger entry are keyed by unique indexes on the endorsement id, and the approval is one
 * transaction that first checks whether it already committed.
 */
export function createEndorsementActivities(deps: ActivityDeps) {
  /** The workflow knows its endorsement by id only: statements key on it, across tenants. */
  const system = () => SystemScope.of(deps.orm.em);

  /** Starts the webhook deliveries a committed change wrote (best effort; the sweeper backs it up). */
  const deliver = (deliveryIds: readonly string[]) => startDeliveries(deps, deps.orm.em, deliveryIds);

  /** After a CD change committed: wakes the endorsements it funded, starts its webhooks. */
  async function settle(aftermath: CdAftermath): Promise<void> {
    await wakeFundedEndorsements(deps.temporal, aftermath.funded);
    await deliver(aftermath.deliveries);
  }

  /**
   * A closed endorsement's hold goes back (once; after the status change, so a retry still
   * releases), then a leaver's exit it blocked is tried again (D16).
   */
  async function close(id: string, to: EndorsementStatus, action: string, reason: string | null = null) {
    await transition(id, to, action, reason);
    await settle(await releaseEndorsementHold(system(), id));
    await retryExitsAfterSettling(deps, system(), id);
  }

  /** A step that did not happen, as the workflow must see it: gone, or a conflict. */
  function stepFailed(id: string, outcome: Exclude<StepOutcome, { kind: 'done' }>, to: string): never {
    if (outcome.kind === 'gone') throw gone(id);
    throw ApplicationFailure.create({
      type: ENDORSEMENT_STATE_CONFLICT,
      message: `endorsement ${id} is ${outcome.status}, cannot move to ${to}`,
    });
  }

  /** A guarded status change with its audit entry and webhook event (usecases/workflow-steps.ts). */
  async function transition(
    id: string,
    to: EndorsementStatus,
    action: string,
    rejectionReason: string | null = null,
  ): Promise<void> {
    const outcome = await moveEndorsement(deps, system(), id, to, action, rejectionReason);
    if (outcome.kind !== 'done') stepFailed(id, outcome, to);
  }

  async function loadSubmission(id: string): Promise<InsurerSubmission> {
    const row = await readInsurerSubmission(system(), id);
    if (!row) throw gone(id);
    return row;
  }

  /**
   * D7 automated review: the employee is ACTIVE (for an addition) and, in runs without CD holds
   * (`cdHold` false), the policy's CD balance covers the premium. Fails with a non-retryable ReviewRejected whose message starts `Review:`.
   * Writes the "workflow runs" mark and, with it, the endorsement's creation event (none ->
   * PENDING): recorded here rather than at the API's insert because from this mark on the
   * endorsement stands (an unstarted one may still be discarded). A retry records nothing new.
   * Answers the facts it read (the hold after it needs the cost; the activity answers nothing).
   */
  async function review(id: string, cdHold: boolean): Promise<ReviewFacts> {
    const row = await beginReview(deps, system(), id);
    if (!row) throw gone(id);
    if (row.status !== 'ENDORSEMENT_STATUS_PENDING') return row;
    const rejection = reviewRejection(row, cdHold);
    if (rejection) throw reviewRejected(rejection);
    return row;
  }

  /**
   * The CD account, right after review: holds what the endorsement will cost, or marks it waiting
   * for funds (the answer says why). Idempotent: the hold is keyed by the endorsement, and one
   * placed meanwhile by a top-up counts. `known`: the cost the review read just before.
   */
  async function holdFunds(id: string, known?: EndorsementCost): Promise<CdHoldAnswer> {
    const outcome = await holdEndorsementFunds(system(), id, known);
    if (outcome.kind === 'gone') throw gone(id);
    await deliver(outcome.deliveries);
    if (outcome.kind === 'held') return { held: true };
    note('endorsement waiting for funds', { endorsementId: id });
    return { held: false, reason: outcome.reason };
  }

  /**
   * D14, right after review: a `file` insurer's endorsement stays PENDING and is queued for the
   * insurer's next cut-off (its first queue mark stays on a retry); any other moves to
   * SENT_TO_INSURER now, exactly as markSentToInsurer (guarded, "already there" is done), and the
   * answer says who has it and since when. One activity either way, so the other insurers'
   * endorsements take no extra step.
   */
  async function route(id: string): Promise<RouteTaken> {
    const outcome = await routeAfterReview(deps, system(), id);
    if (outcome.kind === 'routed') return outcome.route;
    return stepFailed(id, outcome, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
  }

  return {
    async reviewEndorsement(id: string, cdHold = false): Promise<void> {
      await review(id, cdHold);
    },
    holdEndorsementFunds: (id: string) => holdFunds(id),
    routeAfterReview: route,

    /**
     * REVIEW_HOLD_AND_ROUTE: the three steps after the create in one call, each the function above
     * with its own idempotency (a retry, or a workflow task re-run after the worker died, finds each
     * step done and does nothing twice). Stops after the hold when the balance is short: the
     * endorsement then waits for funds, and the workflow routes it once a hold is placed. Answers the
     * route when held, else the hold's answer.
     */
    async reviewHoldAndRoute(
      id: string,
    ): Promise<{ held: true; route: RouteTaken } | { held: false; reason?: string }> {
      const facts = await review(id, true);
      const hold = await holdFunds(id, facts);
      if (!hold.held) return { held: false, reason: hold.reason };
      return { held: true, route: await route(id) };
    },

    async markSentToInsurer(id: string): Promise<void> {
      await transition(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER', 'sent_to_insurer');
    },

    async rejectEndorsement(id: string, reason: string): Promise<void> {
      await close(id, 'ENDORSEMENT_STATUS_REJECTED', 'reject', reason.slice(0, 1000));
    },

    async cancelEndorsement(id: string): Promise<void> {
      await close(id, 'ENDORSEMENT_STATUS_CANCELLED', 'cancel');
    },

    /**
     * D7 + D14: a file insurer's endorsement cancelled after delivery waits for the next cut-off,
     * whose file withdraws it. Idempotent (the first mark stays).
     */
    async queueFileWithdrawal(id: string): Promise<void> {
      if (await queueFileWithdrawal(system(), id))
        note('endorsement queued for withdrawal by the next cut-off', { endorsementId: id });
    },

    /** D8: hands the endorsement to its insurer's adapter (idempotent by endorsement id), heartbeating. */
    async submitToInsurer(id: string): Promise<void> {
      const submission = await loadSubmission(id);
      try {
        await heartbeating((signal) => deps.adapters.get(submission.adapter).submit(submission, { signal }));
      } catch (err) {
        await reportSubmissionFailure(deps.temporal, err);
        throw err;
      }
      note('endorsement submitted to insurer', { endorsementId: id, adapter: submission.adapter });
    },

    async withdrawFromInsurer(id: string): Promise<void> {
      const submission = await loadSubmission(id);
      await heartbeating((signal) => deps.adapters.get(submission.adapter).withdraw(submission, { signal }));
      note('endorsement withdrawn from insurer', { endorsementId: id, adapter: submission.adapter });
    },

    /**
     * The insurer approved: in ONE transaction, the member rows (ending on their date, D10, by the
     * worker's clock), the CD ledger entry and balance, and the endorsement's APPROVED status with
     * the insurer's ids. The endorsement and policy rows are locked first; an endorsement already
     * APPROVED means a previous attempt committed.
     */
    async applyApproval(id: string, ids: InsurerIds): Promise<void> {
      const outcome = await applyEndorsementApproval(system(), id, ids, today(deps.clock));
      if (outcome.kind === 'gone') throw gone(id);
      if (outcome.kind === 'conflict') {
        throw ApplicationFailure.create({
          type: ENDORSEMENT_STATE_CONFLICT,
          message: `endorsement ${id} is ${outcome.status}, cannot be approved`,
        });
      }
      note('endorsement approval applied', { endorsementId: id });
      await settle(outcome);
      // D16: the exit this endorsement kept waiting (the one-open-endorsement rule) is created now.
      await retryExitsAfterSettling(deps, system(), id);
    },

    /**
     * The simulated insurer's decision, sent through the decision Update as any insurer's. Safe to
     * retry: a repeat answers duplicate. The answer (ids and a reason, no personal data) is returned.
     */
    async sendSimulatedDecision(id: string, decision: InsurerDecision): Promise<DecisionAnswer> {
      return sendInsurerDecision(deps.temporal, id, decision);
    },

    /** D14: who has the endorsement and since when, for the backlog search attributes. */
    async readEndorsementInsurer(id: string): Promise<InsurerAssignment> {
      const row = await readEndorsementInsurer(system(), id);
      if (!row) throw gone(id);
      return row;
    },

    /** D14: announces the SLA breach (`endorsement.sla_breached`); a retry announces nothing new. */
    async recordSlaBreach(id: string, slaDueAt: string): Promise<void> {
      if (!(await announceSlaBreach(deps, system(), id, slaDueAt))) throw gone(id);
      note('endorsement past the insurer SLA', { endorsementId: id });
    },

    /**
     * Starts the workflow of every endorsement, and of every census batch (a batch of endorsements,
     * D16), still without one after the grace period (a crash between the API's commit and its
     * start). Returns how many it started. An activity change only: the pass workflow is as it was.
     */
    async reconcileUnstartedEndorsements(input: { graceMs: number }): Promise<{ started: number }> {
      const started = await reconcileUnstartedEndorsements(deps, system(), input.graceMs);
      const batches = await reconcileUnstartedCensusBatches(deps, system(), input.graceMs);
      if (started + batches > 0) deps.logger.info({ started, batches }, 'reconciled unstarted endorsements');
      return { started: started + batches };
    },
  };
}

export type EndorsementActivities = ReturnType<typeof createEndorsementActivities>;
