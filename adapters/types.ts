import type { InsurerSubmission } from '../domain/insurer-submission.js';

export type { InsurerSubmission };

/**
 * One insurer integration (D8). Both calls are retried by their activity and must be idempotent
 * (keyed by endorsement id). The insurer's answer comes back later as the `insurerDecision` signal
 * (workflows/endorsement/contract.ts), however the integration receives it.
 */
export interface InsurerAdapter {
  submit(submission: InsurerSubmission): Promise<void>;
  /** Called when an endorsement is cancelled after submission. */
  withdraw(submission: InsurerSubmission): Promise<void>;
}
