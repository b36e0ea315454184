import type { EntityManager } from '@mikro-orm/postgresql';
import { readEndorsementInsurer, recordEndorsementSlaBreach } from '../data/insurer-exchange/sla.js';
import {
  markEndorsementUnderReview,
  transitionEndorsement,
  type ReviewFacts,
} from '../data/endorsements/endorsements.js';
import { transitionGrant } from '../data/grants/grants.js';
import { queueWithdrawal, routeToInsurer, type InsurerRoute } from '../data/insurer-exchange/cut-off.js';
import type { SystemScope } from '../data/scope.js';
import { OPEN_ENDORSEMENT_STATUSES, type EndorsementStatus, type GrantStatus } from '../domain/enums.js';
import type { InsurerAssignment } from '../domain/insurer-exchange/decisions.js';
import { startDeliveries, type DeliveryStartDeps } from './webhooks/deliveries.js';

/**
 * The writes of the endorsement, grant and cut-off workflows' steps. A workflow knows its record by id
 * only, so each takes the SystemScope and keys on that id. Every one is idempotent under an activity's
 * retry (guarded updates, first marks kept, events deduplicated by key); the deliveries a committed
 * change wrote are started here, best effort (the sweeper starts any whose start was lost).
 */
export interface StepDeps extends DeliveryStartDeps {
  orm: { em: EntityManager };
}

/** What a guarded status change found: done (moved now, or already there), gone, or another status. */
export type StepOutcome = { kind: 'done' } | { kind: 'gone' } | { kind: 'conflict'; status: string };

/**
 * The one rule of a guarded status change, for endorsements and grants alike: moved -> its webhook
 * deliveries start; nothing moved but already in `to` -> done (a retry of an attempt that committed,
 * whose event is recorded); no row -> gone; anything else -> a conflict the workflow must see.
 */
async function settleTransition(
  deps: StepDeps,
  row: { moved: boolean; status: string | null; deliveries: string[] } | undefined,
  to: string,
): Promise<StepOutcome> {
  if (row?.moved) {
    await startDeliveries(deps, deps.orm.em, row.deliveries);
    return { kind: 'done' };
  }
  if (row?.status === to) return { kind: 'done' };
  if (!row?.status) return { kind: 'gone' };
  return { kind: 'conflict', status: row.status };
}

/** An endorsement's status change with its audit entry and event (data/endorsements/endorsements.ts, one statement). */
export async function moveEndorsement(
  deps: StepDeps,
  system: SystemScope,
  id: string,
  to: EndorsementStatus,
  action: string,
  rejectionReason: string | null = null,
): Promise<StepOutcome> {
  return settleTransition(deps, await transitionEndorsement(system, id, to, action, rejectionReason), to);
}

/** A grant's status change, only from `from`, with its audit entry and event. */
export async function moveGrant(
  deps: StepDeps,
  system: SystemScope,
  id: string,
  from: readonly GrantStatus[],
  to: GrantStatus,
): Promise<StepOutcome> {
  return settleTransition(deps, await transitionGrant(system, id, from, to), to);
}

/**
 * The workflow runs: its mark and the creation event (none -> PENDING), then the facts the review
 * decides on. Undefined: no such endorsement. A retry records nothing new.
 */
export async function beginReview(
  deps: StepDeps,
  system: SystemScope,
  id: string,
): Promise<ReviewFacts | undefined> {
  const row = await markEndorsementUnderReview(system, id);
  if (row) await startDeliveries(deps, deps.orm.em, row.deliveries);
  return row;
}

/** The route taken after review; sent now (any insurer but a file one): who has it and since when. */
export interface RouteTaken extends InsurerRoute {
  insurer?: InsurerAssignment;
}

/**
 * D14, right after review: a `file` insurer's endorsement stays PENDING and is queued for the
 * insurer's next cut-off (its first queue mark stays on a retry); any other moves to SENT_TO_INSURER
 * now (guarded, "already there" is done), and the route says who has it and since when (read right
 * after the change, by the database's clock), which its workflow's SLA watch starts from. Gone: no
 * such endorsement.
 */
export async function routeAfterReview(
  deps: StepDeps,
  system: SystemScope,
  id: string,
): Promise<{ kind: 'routed'; route: RouteTaken } | Exclude<StepOutcome, { kind: 'done' }>> {
  const route = await routeToInsurer(system, id);
  if (!route) return { kind: 'gone' };
  if (route.adapter !== 'file') {
    const moved = await moveEndorsement(
      deps,
      system,
      id,
      'ENDORSEMENT_STATUS_SENT_TO_INSURER',
      'sent_to_insurer',
    );
    // Closed already: this run routed it and went on to its decision in a workflow task whose
    // completion was refused (signals arrived meanwhile), so its local steps run again on replay.
    // Routing again changes nothing; the steps after it are guarded the same way.
    if (moved.kind === 'conflict' && !isOpen(moved.status)) return { kind: 'routed', route };
    if (moved.kind !== 'done') return moved;
    const insurer = await readEndorsementInsurer(system, id);
    if (!insurer) return { kind: 'gone' };
    return { kind: 'routed', route: { ...route, insurer } };
  }
  return { kind: 'routed', route };
}

const isOpen = (status: string): boolean => (OPEN_ENDORSEMENT_STATUSES as readonly string[]).includes(status);

/** D7 + D14: a file insurer's endorsement cancelled after delivery is withdrawn by the next cut-off. */
export async function queueFileWithdrawal(system: SystemScope, id: string): Promise<boolean> {
  return queueWithdrawal(system, id);
}

/** D14: the SLA breach announced once (`endorsement.sla_breached`). False: no such endorsement. */
export async function announceSlaBreach(
  deps: StepDeps,
  system: SystemScope,
  id: string,
  slaDueAt: string,
): Promise<boolean> {
  const row = await recordEndorsementSlaBreach(system, id, slaDueAt);
  if (!row) return false;
  await startDeliveries(deps, deps.orm.em, row.deliveries);
  return true;
}
