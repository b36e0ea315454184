import type { Client } from '@temporalio/client';
import { TenantScope, type SystemScope } from '../../data/scope.js';
import { cdFundsHeldSignal, endorsementWorkflowId } from '../../workflows/endorsement/contract.js';
import {
  checkCdLow,
  findEndorsementCost,
  findPolicyClient,
  type EndorsementCost,
  holdAtReview,
  listPoliciesForCdCheck,
  lockEndorsementAccount,
  lockEndorsementsAwaitingFunds,
  postCdEntryAndFold,
  setAwaitingFunds,
  readCdLowState,
  setCdLowThreshold,
} from '../../data/cd-account/account.js';
import {
  findEndorsementEntry,
  findReferenceEntry,
  lockPolicyCd,
  postCdEntry,
  type CdTotals,
} from '../../data/cd-account/ledger.js';
import { awaitingFundsReason, holdFor, isRefund, rupees } from '../../domain/cd-account/account.js';
import { formatPaise, toPaise } from '../../domain/premium.js';

/**
 * The CD account's use cases (issue 17). Concurrency: each one runs in one transaction that first
 * locks the policy row, so holds, releases, top-ups and the queue of endorsements waiting for funds
 * are decided one at a time per policy; every posting is one guarded statement (postCdEntry) that
 * cannot take the available balance below zero. Idempotency: entries are keyed by (endorsement,
 * kind) or by a top-up's reference, so a retried activity or command posts nothing twice.
 */

/** What a change to the account leaves to do after its commit: workflows to wake, webhooks to start. */
export interface CdAftermath {
  /** Endorsements whose hold the change placed (their workflows wait for funds). */
  funded: string[];
  deliveries: string[];
}

const available = (t: CdTotals) => formatPaise(toPaise(t.cd_balance) - toPaise(t.cd_held));

/**
 * Places the holds of the policy's waiting endorsements, oldest first, while the available balance
 * covers the next one (strictly in order: a large one at the head is not overtaken). Inside the
 * caller's transaction, the policy row locked.
 */
export async function fundWaitingEndorsements(scope: TenantScope, policyId: string): Promise<string[]> {
  const funded: string[] = [];
  for (const e of await lockEndorsementsAwaitingFunds(scope, policyId)) {
    const posted = await postCdEntry(scope, holdPosting(policyId, e.id, e.premium_impact, false));
    if (!posted && !(await findEndorsementEntry(scope, e.id, 'hold'))) break;
    await setAwaitingFunds(scope, e.id, false);
    funded.push(e.id);
  }
  return funded;
}

const holdPosting = (policyId: string, endorsementId: string, premium: string, queueFirst: boolean) => ({
  policyId,
  kind: 'hold' as const,
  endorsementId,
  amount: 0n,
  held: holdFor(premium),
  guarded: true,
  queueFirst,
  reason: 'held at review',
});

export type HoldOutcome =
  | { kind: 'held'; deliveries: string[] }
  | { kind: 'waiting'; reason: string; deliveries: string[] }
  | { kind: 'gone' };

/**
 * At review: holds what the endorsement will cost (nothing for a zero or negative premium), or,
 * when the available balance cannot cover it or older endorsements of the policy already wait,
 * marks it waiting for funds (its place in the queue is its first such mark). A hold placed
 * meanwhile by a top-up counts as held. Every hold, and every wait, runs the low-balance check.
 * `known`: the endorsement's cost as the caller read it just now (the review's statement), which
 * spares the read of it.
 */
export async function holdEndorsementFunds(
  system: SystemScope,
  id: string,
  known?: EndorsementCost,
): Promise<HoldOutcome> {
  const e = known ?? (await findEndorsementCost(system, id));
  if (!e) return { kind: 'gone' };
  const tenant = TenantScope.of(system.em, e.client_id);
  const posting =
    holdFor(e.premium_impact) === 0n ? null : holdPosting(e.policy_id, id, e.premium_impact, true);
  // One message, outside a transaction: the policy row is held for the database's time alone.
  const hold = await holdAtReview(tenant, id, e.policy_id, posting);
  if (!hold) return { kind: 'gone' };
  const { placed, account, deliveries } = hold;
  if (placed) return { kind: 'held', deliveries };
  return { kind: 'waiting', reason: awaitingFundsReason(available(account), e.premium_impact), deliveries };
}

/**
 * A rejected or cancelled endorsement gives back what it held (once: the release is keyed by the
 * endorsement) and leaves the queue; the funds freed go to the endorsements waiting next.
 */
export async function releaseEndorsementHold(system: SystemScope, id: string): Promise<CdAftermath> {
  return system.transaction(async (tx): Promise<CdAftermath> => {
    const e = await lockEndorsementAccount(tx, id);
    if (!e) return { funded: [], deliveries: [] };
    const tenant = TenantScope.of(tx.em, e.client_id);
    if (e.awaiting) await setAwaitingFunds(tenant, id, false);
    const hold = await findEndorsementEntry(tenant, id, 'hold');
    if (!hold) return { funded: [], deliveries: [] };
    await postCdEntry(tenant, {
      policyId: e.policy_id,
      kind: 'release',
      endorsementId: id,
      amount: 0n,
      held: -toPaise(hold.held_change),
      guarded: false,
      reason: `released: ${e.status}`,
    });
    return { funded: await fundWaitingEndorsements(tenant, e.policy_id), deliveries: [] };
  });
}

/**
 * A refund (negative premium) funds the waiting endorsements, a decision on the queue: its approval
 * locks the policy row before anything else, the order every such decision keeps. Other approvals
 * leave the lock to their posting, their transaction's last statement.
 */
export async function lockAccountBeforeRefund(
  tenant: TenantScope,
  e: { policy_id: string; premium_impact: string },
): Promise<void> {
  if (isRefund(e.premium_impact)) await lockPolicyCd(tenant, e.policy_id);
}

/**
 * The approval's posting, sent with the fold of the policy's kept sums (which needs the row held) as
 * one message (its update locks the policy row, unless a refund's approval locked it first): a
 * positive premium is debited and its hold, if any, consumed (runs started before holds existed have
 * none and are debited as before: the insurer has approved), the transaction's last message; a
 * refund is credited and then may fund the waiting endorsements (their holds' changes folded by the
 * policy's next fold, as any change committed meanwhile). Keyed by (endorsement, kind): a retry
 * posts nothing.
 */
export async function settleApprovedEndorsement(
  tenant: TenantScope,
  e: { id: string; policy_id: string; type: string; premium_impact: string; hold_held_change: string | null },
): Promise<string[]> {
  const impact = toPaise(e.premium_impact);
  const refund = isRefund(e.premium_impact);
  // The hold as the approval's locking read found it (lockEndorsementForApproval).
  const hold = impact > 0n && e.hold_held_change !== null ? toPaise(e.hold_held_change) : 0n;
  await postCdEntryAndFold(tenant, {
    policyId: e.policy_id,
    kind: refund ? 'credit' : 'debit',
    endorsementId: e.id,
    amount: -impact,
    held: -hold,
    guarded: false,
    reason: e.type,
  });
  return refund ? fundWaitingEndorsements(tenant, e.policy_id) : [];
}

export class CdTopUpRefused extends Error {}

export interface TopUpResult {
  policy_id: string;
  reference: string;
  amount: string;
  /** True when this reference was already recorded (nothing posted again). */
  duplicate: boolean;
  cd_balance: string;
  cd_held: string;
  cd_available_balance: string;
  /** Endorsements that waited for funds and now hold them, oldest first. */
  funded_endorsements: string[];
}

/**
 * An operator's top-up: idempotent by reference (the same reference and amount again changes
 * nothing; another amount under a used reference is refused), then the waiting endorsements are
 * funded oldest first and the low-balance state is re-checked (a top-up above the threshold re-arms
 * the warning).
 */
export async function topUpCd(
  system: SystemScope,
  policyId: string,
  amount: bigint,
  reference: string,
): Promise<TopUpResult & CdAftermath> {
  const clientId = await findPolicyClient(system, policyId);
  if (!clientId) throw new CdTopUpRefused(`no policy ${policyId}`);
  return TenantScope.of(system.em, clientId).transaction(async (tenant) => {
    const before = await lockPolicyCd(tenant, policyId);
    if (!before) throw new CdTopUpRefused(`no policy ${policyId}`);
    const seen = await findReferenceEntry(tenant, policyId, reference);
    if (seen && (seen.kind !== 'top_up' || toPaise(seen.amount) !== amount)) {
      throw new CdTopUpRefused(`reference ${reference} is already recorded as ${seen.kind} ${seen.amount}`);
    }
    const posted = seen
      ? null
      : await postCdEntry(tenant, {
          policyId,
          kind: 'top_up',
          reference,
          amount,
          held: 0n,
          guarded: false,
          reason: 'top-up',
        });
    const funded = posted ? await fundWaitingEndorsements(tenant, policyId) : [];
    const deliveries = await checkCdLow(tenant, policyId);
    const after = (await lockPolicyCd(tenant, policyId))!;
    return {
      policy_id: policyId,
      reference,
      amount: rupees(amount),
      duplicate: !posted,
      cd_balance: after.cd_balance,
      cd_held: after.cd_held,
      cd_available_balance: available(after),
      funded_endorsements: funded,
      funded,
      deliveries,
    };
  });
}

/**
 * An operator's low-balance threshold for a policy (null: back to 10 % of the gross annual premium),
 * then the check at once: a threshold raised above the forecast announces a crossing, one lowered
 * below it re-arms the warning. Concurrency: the policy row is locked first, like every decision on
 * the account; idempotent: the same threshold again changes nothing and announces nothing.
 */
export async function setPolicyCdThreshold(
  system: SystemScope,
  policyId: string,
  threshold: bigint | null,
): Promise<CdThresholdResult & { deliveries: string[] }> {
  const clientId = await findPolicyClient(system, policyId);
  if (!clientId) throw new CdTopUpRefused(`no policy ${policyId}`);
  return TenantScope.of(system.em, clientId).transaction(async (tenant) => {
    if (!(await lockPolicyCd(tenant, policyId))) throw new CdTopUpRefused(`no policy ${policyId}`);
    await setCdLowThreshold(tenant, policyId, threshold === null ? null : rupees(threshold));
    const deliveries = await checkCdLow(tenant, policyId);
    const state = (await readCdLowState(tenant, policyId))!;
    return {
      policy_id: policyId,
      cd_low_threshold: state.threshold,
      default: !state.own,
      cd_low: state.low,
      deliveries,
    };
  });
}

export interface CdThresholdResult {
  policy_id: string;
  /** The threshold in force, in rupees. */
  cd_low_threshold: string;
  /** True when it is the default, 10 % of the gross annual premium. */
  default: boolean;
  /** Whether the account is below it now (a warning went out when this change crossed it). */
  cd_low: boolean;
}

/**
 * The daily pass: every active policy's low-balance check. Returns the deliveries to start.
 * Concurrency: each policy's check runs in a transaction of its own with the policy row locked
 * first, the order every writer of the account keeps (a hold and an approval lock the row and then
 * fold the kept sums): a fold that deleted change rows and then waited for the policy row would
 * deadlock with an approval folding after its posting. A retry of the pass checks again and
 * announces nothing twice (the flip is guarded).
 */
export async function checkAllCdLow(system: SystemScope): Promise<{ checked: number; deliveries: string[] }> {
  const policies = await listPoliciesForCdCheck(system);
  const deliveries: string[] = [];
  for (const p of policies)
    deliveries.push(
      ...(await system.transaction(async (tx) => {
        const tenant = TenantScope.of(tx.em, p.client_id);
        return (await lockPolicyCd(tenant, p.id)) ? checkCdLow(tenant, p.id) : [];
      })),
    );
  return { checked: policies.length, deliveries };
}

/**
 * Tells the workflows of endorsements whose hold was placed for them to go on (best effort after
 * the commit: a workflow that misses it finds its hold at its next periodic re-check).
 */
export async function wakeFundedEndorsements(temporal: Client, ids: readonly string[]): Promise<void> {
  for (const id of ids) {
    await temporal.workflow
      .getHandle(endorsementWorkflowId(id))
      .signal(cdFundsHeldSignal)
      .catch(() => undefined);
  }
}
