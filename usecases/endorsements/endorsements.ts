import {
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import type { Config } from '../../config/index.js';
import { startRecordWorkflow, storeThenStart, type StartDeps } from '../workflow-start.js';
import { today, type Clock } from '../../domain/clock.js';
import * as approval from '../../data/endorsements/approval.js';
import {
  discardUnstartedEndorsement,
  insertEndorsement,
  listUnstartedEndorsements,
  markEndorsementWorkflowStarted,
  readEndorsementCandidates,
  readReinstatementCandidate,
} from '../../data/endorsements/endorsements.js';
import {
  decideReinstatement,
  DEFAULT_REINSTATEMENT_WINDOW_DAYS,
} from '../../domain/endorsements/reinstatement.js';
import { readDependentCandidates } from '../../data/dependents/endorsements.js';
import { decideDependentEndorsement } from '../../domain/dependents/endorsements.js';
import { endLapsedCoverOf } from '../../data/member-cover.js';
import { lockAccountBeforeRefund, settleApprovedEndorsement } from '../cd-account/account.js';
import { readCdAccount } from '../../data/cd-account/account.js';
import { forecastHold, type CdForecast } from '../../domain/cd-account/account.js';
import { toPaise } from '../../domain/premium.js';
import type { SystemScope } from '../../data/scope.js';
import { TenantScope } from '../../data/scope.js';
import {
  decideEndorsement,
  endorsementInProgress,
  type CandidatePolicy,
  type EndorsementDecision,
  type CreatedEndorsement,
  type EndorsementRequest,
} from '../../domain/endorsements/endorsement.js';
import type { EndorsementStatus } from '../../domain/enums.js';
import {
  cancelEndorsementUpdate,
  durationMs,
  ENDORSEMENT_WORKFLOW,
  endorsementStartOptions,
  type EndorsementWorkflowInput,
} from '../../workflows/endorsement/contract.js';

/** How long a cancel waits for the workflow's answer before answering 503 (the client retries). */
const CANCEL_DEADLINE_MS = 10_000;

/**
 * D7's create: one read (employee, candidate policies, cover on `today`, open endorsements), the pure
 * decision, one write storing it PENDING with its audit entry. The workflow is started by the
 * caller. Concurrency: the insert loses to a concurrent open endorsement (partial unique index) and
 * is then refused IN_PROGRESS with the winner's id.
 */
export async function createEndorsement(
  scope: TenantScope,
  req: EndorsementRequest,
  actor: { tokenId: string | null; batchId?: string },
  today: string,
  rules: EndorsementRules = DEFAULT_RULES,
): Promise<CreatedEndorsement> {
  const { candidates, decision } = await decide(scope, req, today, rules);
  const stored = await insertEndorsement(scope, req, decision, actor);
  if (!stored.inserted) throw endorsementInProgress(stored.openId);
  const chosen = candidates.find((c) => c.id === decision.policyId);
  return {
    id: stored.id,
    clientId: scope.clientId,
    policyId: decision.policyId,
    employeeId: req.employeeId,
    type: req.type,
    ...(actor.batchId && { batchId: actor.batchId }),
    ...(chosen?.employee_code && {
      codes: {
        policyNumber: chosen.policy_number,
        insurerCode: chosen.insurer_code ?? null,
        employeeCode: chosen.employee_code,
      },
    }),
  };
}

/** What a create would do (D17's dry run): the decision, the routed policy's number, the CD forecast. */
export interface PricedEndorsement {
  decision: EndorsementDecision;
  policyNumber: string;
  cd: CdForecast;
}

/**
 * D17's dry run of a create: the same read and pure decision as createEndorsement (so the same
 * refusals), then the routed policy's CD account read and the review's hold rule applied. Writes
 * nothing (no row, no audit entry, no workflow): repeating it is harmless.
 */
export async function priceEndorsement(
  scope: TenantScope,
  req: EndorsementRequest,
  today: string,
  rules: EndorsementRules = DEFAULT_RULES,
): Promise<PricedEndorsement> {
  const { candidates, decision } = await decide(scope, req, today, rules);
  const account = await readCdAccount(scope, decision.policyId);
  const chosen = candidates.find((c) => c.id === decision.policyId);
  return {
    decision,
    policyNumber: chosen?.policy_number ?? '',
    cd: forecastHold(toPaise(account?.available ?? '0'), account?.waiting ?? false, decision.premiumImpact),
  };
}

type Codes = Pick<CandidatePolicy, 'policy_number' | 'insurer_code' | 'employee_code'> & {
  id: string | null;
};

/** The configurable rules a create decides by (config: REINSTATEMENT_WINDOW_DAYS). */
export interface EndorsementRules {
  reinstatementWindowDays: number;
}
const DEFAULT_RULES: EndorsementRules = { reinstatementWindowDays: DEFAULT_REINSTATEMENT_WINDOW_DAYS };

/** The rules of the service's configuration. */
export const endorsementRules = (config: Pick<Config, 'REINSTATEMENT_WINDOW_DAYS'>): EndorsementRules => ({
  reinstatementWindowDays: config.REINSTATEMENT_WINDOW_DAYS,
});

/**
 * The employee's own endorsement (D7), a dependent's (D16) or a reinstatement (D17): its read and
 * its pure decision.
 */
async function decide(
  scope: TenantScope,
  req: EndorsementRequest,
  today: string,
  rules: EndorsementRules,
): Promise<{ candidates: Codes[]; decision: EndorsementDecision }> {
  if (req.type === 'ENDORSEMENT_TYPE_REINSTATEMENT') {
    const row = await readReinstatementCandidate(scope, req, today);
    const decision = decideReinstatement(row, req, today, rules.reinstatementWindowDays);
    const codes = {
      id: decision.policyId,
      policy_number: row!.policy_number!,
      insurer_code: row!.insurer_code,
      employee_code: row!.employee_code,
    };
    return { candidates: [codes], decision };
  }
  const { dependentId } = req;
  if (dependentId) {
    const candidates = await readDependentCandidates(scope, { ...req, dependentId }, today);
    return { candidates, decision: decideDependentEndorsement(candidates, req, today) };
  }
  const candidates = await readEndorsementCandidates(scope, req, today);
  return { candidates, decision: decideEndorsement(candidates, req) };
}

export function workflowInput(e: CreatedEndorsement, config: Config): EndorsementWorkflowInput {
  return {
    endorsementId: e.id,
    clientId: e.clientId,
    policyId: e.policyId,
    employeeId: e.employeeId,
    type: e.type,
    stuckAfterMs: durationMs(config.ENDORSEMENT_STUCK_AFTER),
    slaAfterMs: durationMs(config.INSURER_SLA_DEFAULT),
    ...(e.codes && { codes: e.codes }),
    ...(e.batchId && { batchId: e.batchId }),
  };
}

/**
 * Starts the endorsement's workflow and records that it runs (idempotent: usecases/workflow-start.ts).
 * `mark: false` leaves the record to the caller (a census chunk marks its starts in one statement).
 */
export async function startEndorsementWorkflow(
  deps: StartDeps,
  scope: TenantScope,
  e: CreatedEndorsement,
  options: { mark: boolean } = { mark: true },
): Promise<void> {
  await startRecordWorkflow(
    deps,
    ENDORSEMENT_WORKFLOW,
    endorsementStartOptions(workflowInput(e, deps.config), deps.config.TEMPORAL_TASK_QUEUE),
    () => (options.mark ? markEndorsementWorkflowStarted(scope, e.id) : Promise.resolve()),
  );
}

/**
 * Stores the endorsement, then starts its workflow; a failed start discards it (storeThenStart), so
 * the client never holds an id without a workflow.
 */
export async function acceptEndorsement(
  deps: StartDeps & { clock: Clock },
  scope: TenantScope,
  req: EndorsementRequest,
  actor: { tokenId: string | null },
): Promise<CreatedEndorsement> {
  return storeThenStart(
    () => createEndorsement(scope, req, actor, today(deps.clock), endorsementRules(deps.config)),
    (created) => startEndorsementWorkflow(deps, scope, created),
    (created) => discardUnstartedEndorsement(scope, created.id),
  );
}

/**
 * Asks the endorsement's workflow to cancel (D7) and waits for its answer. Update-with-start: an
 * endorsement whose workflow never started (a crash after its commit) gets it started with the
 * cancel already delivered, so the cancel is decided before anything else happens. Returns
 * normally whether the workflow accepted or refused (a decision came first): the row says which.
 */
export async function cancelThroughWorkflow(
  deps: StartDeps,
  scope: TenantScope,
  e: CreatedEndorsement,
): Promise<void> {
  const startWorkflowOperation = new WithStartWorkflowOperation(
    ENDORSEMENT_WORKFLOW,
    endorsementStartOptions(workflowInput(e, deps.config), deps.config.TEMPORAL_TASK_QUEUE),
  );
  try {
    await deps.temporal.withDeadline(Date.now() + CANCEL_DEADLINE_MS, () =>
      deps.temporal.workflow.executeUpdateWithStart(cancelEndorsementUpdate, { startWorkflowOperation }),
    );
  } catch (err) {
    const refusedOrClosed =
      err instanceof WorkflowUpdateFailedError ||
      err instanceof WorkflowNotFoundError ||
      err instanceof WorkflowExecutionAlreadyStartedError;
    if (!refusedOrClosed) throw err;
  }
  await markEndorsementWorkflowStarted(scope, e.id);
}

/**
 * Starts the workflow of every endorsement (any tenant) still without one after the grace period
 * (a crash between the API's commit and its start). Idempotent through the start's workflow id.
 */
export async function reconcileUnstartedEndorsements(
  deps: StartDeps,
  system: SystemScope,
  graceMs: number,
): Promise<number> {
  const rows = await listUnstartedEndorsements(system, graceMs);
  for (const r of rows) {
    const started = { ...r, batchId: r.batchId ?? undefined };
    await startEndorsementWorkflow(deps, TenantScope.of(system.em, r.clientId), started);
  }
  return rows.length;
}

/** How an approval ended: applied now or before (deliveries to start), or why it could not be. */
export type ApprovalOutcome =
  | { kind: 'applied'; deliveries: string[]; funded: string[] }
  | { kind: 'gone' }
  | { kind: 'conflict'; status: EndorsementStatus };

/**
 * The insurer approved on `today` (business date): in ONE transaction, the member rows (D10: cover
 * ends on its date), the endorsement's APPROVED status with the insurer's ids, its audit entry and
 * its webhook event, and last the CD posting (its hold debited, a refund credited).
 * Concurrency: the endorsement row is locked first, so attempts at one approval serialise. The
 * policy row, which every CD change of the policy locks, is taken by the posting, last, so the
 * approvals of one policy wait for each other only for that message (the posting and the fold of
 * the policy's kept sums) and the commit, not for the whole transaction. A refund funds the waiting
 * endorsements and so decides on the queue: like every such decision it locks the policy first (the
 * order the CD account's use cases keep).
 * Idempotent: an endorsement already APPROVED means a previous attempt committed, and nothing is
 * written again.
 */
export async function applyEndorsementApproval(
  system: SystemScope,
  id: string,
  ids: approval.InsurerIds,
  today: string,
): Promise<ApprovalOutcome> {
  return system.transaction(async (tx): Promise<ApprovalOutcome> => {
    const e = await approval.lockEndorsementForApproval(tx, id);
    if (!e) return { kind: 'gone' };
    if (e.status === 'ENDORSEMENT_STATUS_APPROVED') return { kind: 'applied', deliveries: [], funded: [] };
    if (e.status !== 'ENDORSEMENT_STATUS_SENT_TO_INSURER') return { kind: 'conflict', status: e.status };
    const tenant = TenantScope.of(tx.em, e.client_id);
    await lockAccountBeforeRefund(tenant, e);
    if (e.type === 'ENDORSEMENT_TYPE_DELETION') await approval.endMemberCover(tenant, e);
    // D10: cover that has ended by date turns inactive first (a DELETION dated before today ends at
    // once), so an ADDITION after it enrols anew and a MODIFICATION leaves ended rows alone.
    await endLapsedCoverOf(tenant, e.policy_id, e.employee_id, today);
    if (e.type === 'ENDORSEMENT_TYPE_ADDITION') await approval.enrolMembers(tenant, e, ids);
    else if (e.type === 'ENDORSEMENT_TYPE_REINSTATEMENT') await approval.restoreMemberCover(tenant, e);
    else if (e.type === 'ENDORSEMENT_TYPE_MODIFICATION') await approval.changeMemberSumInsured(tenant, e);
    const deliveries = await approval.markEndorsementApproved(tenant, e, ids);
    // The posting takes the policy row and folds its kept sums (this approval's changes and any
    // before) in the same message: the row is held until the commit's one round trip.
    const funded = await settleApprovedEndorsement(tenant, e);
    return { kind: 'applied', deliveries, funded };
  });
}
