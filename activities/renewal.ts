import { ApplicationFailure } from '@temporalio/common';
import { SystemScope, TenantScope } from '../data/scope.js';
import {
  autoConfirmRenewal,
  expireOnEnd,
  openPolicyRenewal,
  renewalClock,
  RenewalRefused,
  renewOnStart,
  startDueRenewals,
  submitPolicyRenewal,
} from '../usecases/policy-year/renewals.js';
import {
  RENEWAL_REFUSED,
  type RenewalClock,
  type RenewalWorkflowInput,
} from '../workflows/renewal/contract.js';
import type { ActivityDeps } from './deps.js';

/** D17's renewal steps. Each is idempotent under retry: every write is a guarded state move (data/policy-year/renewals.ts). */
export function createRenewalActivities(deps: ActivityDeps) {
  const scopeOf = (input: RenewalWorkflowInput) => TenantScope.of(deps.orm.em, input.clientId);
  const refused = (err: unknown): never => {
    if (err instanceof RenewalRefused) {
      throw ApplicationFailure.create({ type: RENEWAL_REFUSED, message: err.message, nonRetryable: true });
    }
    throw err;
  };
  return {
    /** Opens the renewal (DRAFT, `policy.renewal_drafted`) unless an operator's command already did. */
    async openRenewalDraft(input: RenewalWorkflowInput): Promise<string> {
      const renewal = await openPolicyRenewal(deps, scopeOf(input), input.policyId, null).catch(refused);
      return renewal.id;
    },
    async readRenewalClock(input: RenewalWorkflowInput): Promise<RenewalClock> {
      return renewalClock(deps, scopeOf(input), input.policyId).catch(refused);
    },
    /** RENEWAL_AUTO_CONFIRM_DAYS before the end: confirms a renewal still DRAFT (HR's decision stands). */
    async confirmRenewalByItself(input: RenewalWorkflowInput & { renewalId: string }): Promise<void> {
      await autoConfirmRenewal(deps, scopeOf(input), input.renewalId);
    },
    /** The insurer hears of the confirmed renewal through its adapter (D14), once. */
    async submitRenewalToInsurer(input: RenewalWorkflowInput): Promise<void> {
      await submitPolicyRenewal(deps, scopeOf(input), input.policyId);
    },
    /** The new term's first day: the new policy ACTIVE, members and CD carried, the old term INACTIVE. */
    async renewPolicyTerm(input: RenewalWorkflowInput): Promise<string | null> {
      return renewOnStart(deps, scopeOf(input), input.policyId);
    },
    /** A declined term, the day after its end: INACTIVE, `policy.expired`. */
    async expireDeclinedTerm(input: RenewalWorkflowInput): Promise<void> {
      await expireOnEnd(deps, scopeOf(input), input.policyId).catch(refused);
    },
    /** The daily pass: starts the renewals whose window opened, nudges the open ones (D13's clock). */
    async startDueRenewals(): Promise<{ started: number; nudged: number }> {
      return startDueRenewals(deps, SystemScope.of(deps.orm.em));
    },
  };
}
