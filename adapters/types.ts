import type { InsurerSubmission } from '../domain/insurer-exchange/submission.js';
import type { RenewalSubmission } from '../domain/policy-year/renewal-submission.js';

export type { InsurerSubmission, RenewalSubmission };

/**
 * One insurer integration (D8). Both calls are retried by their activity and must be idempotent
 * (keyed by endorsement id). The insurer's answer comes back later through sendInsurerDecision
 * (adapters/decisions.ts: the decision Update, answered accepted / duplicate / refused), however the
 * integration receives it.
 */
export interface InsurerAdapter {
  submit(submission: InsurerSubmission, options?: AdapterCallOptions): Promise<void>;
  /** Called when an endorsement is cancelled after submission, once its submit call has ended. */
  withdraw(submission: InsurerSubmission, options?: AdapterCallOptions): Promise<void>;
  /**
   * D17: a confirmed renewal of a policy term, once (retried by its activity; idempotent by renewal
   * id). An adapter without it (a test double) has the renewal recorded as sent, as `manual` does.
   */
  submitRenewal?(renewal: RenewalSubmission): Promise<void>;
}

export interface AdapterCallOptions {
  /**
   * Aborted when the endorsement's workflow cancels the call (a cancel while submitting). An adapter
   * passes it to its network call: the withdraw waits for the submit call to end, so the sooner it
   * ends, the sooner the client's cancel is answered.
   */
  signal?: AbortSignal | undefined;
}
