import { log, metricMeter, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import type {
  AgeOutResult,
  CdBalanceCheckResult,
  CoverEndResult,
  PassInput,
  PassResult,
  RenewalPassResult,
} from './contract.js';

/** A pass reads a page of rows and starts workflows; a few quick retries, then the run fails. */
const passes = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 3 },
});

/** Runs one pass; a failure is logged, counted and fails the run (the Schedule shows it). */
async function onePass<
  R extends PassResult | CoverEndResult | CdBalanceCheckResult | AgeOutResult | RenewalPassResult,
>(pass: string, run: () => Promise<R>): Promise<R> {
  try {
    const result = await run();
    if (Object.values(result).some((n) => n > 0)) log.info('periodic pass done', { pass, ...result });
    return result;
  } catch (err) {
    metricMeter
      .createCounter('periodic_pass_failures', 'passes', 'Reconciler and sweeper passes that failed')
      .add(1, { pass });
    log.error('periodic pass failed', { pass, error: err instanceof Error ? err.message : String(err) });
    throw err;
  }
}

/**
 * Recovers a crash between an endorsement's commit and its workflow start (D7). Starting is
 * idempotent (the workflow id is derived from the endorsement id), so overlapping with the API's
 * own start is safe.
 */
export async function endorsementReconcilePassWorkflow(input: PassInput): Promise<PassResult> {
  return onePass('endorsement-reconciler', () => passes.reconcileUnstartedEndorsements(input));
}

/** Recovers a crash between a grant's commit and its workflow start (idempotent likewise). */
export async function grantReconcilePassWorkflow(input: PassInput): Promise<PassResult> {
  return onePass('grant-reconciler', () => passes.reconcileUnstartedGrants(input));
}

/**
 * The outbox's relay of last resort: starts deliveries left without a workflow after the activity
 * that wrote them (idempotently: the workflow id is the delivery's).
 */
export async function webhookSweepPassWorkflow(input: PassInput): Promise<PassResult> {
  return onePass('webhook-sweeper', () => passes.startPendingDeliveries(input));
}

/**
 * D10: cover that ended by date turns inactive in storage (reads already apply the date); D16: the
 * exits still pending after their leaving date are announced (in the same activity).
 */
export async function memberCoverEndPassWorkflow(): Promise<CoverEndResult> {
  return onePass('member-cover-end', () => passes.endLapsedCover());
}

/** The CD account's daily low-balance check over every active policy (a warning once per crossing). */
export async function cdBalanceCheckPassWorkflow(): Promise<CdBalanceCheckResult> {
  return onePass('cd-balance-check', () => passes.checkCdBalances());
}

/** D16: children over the age limit at their policy's renewal get a DELETION ending cover then. */
export async function dependentAgeOutPassWorkflow(): Promise<AgeOutResult> {
  return onePass('dependent-age-out', () => passes.removeAgedOutChildren());
}

/** D17: renewals open RENEWAL_LEAD_DAYS before the end; open ones look at the day's date again. */
export async function renewalPassWorkflow(): Promise<RenewalPassResult> {
  return onePass('policy-renewal', () => passes.startDueRenewals());
}
