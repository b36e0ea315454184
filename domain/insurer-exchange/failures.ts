/**
 * How an insurer call fails (adapters): REFUSED when the insurer answered that the request itself is
 * wrong (retrying cannot change it; the message carries the insurer's detail), UNAVAILABLE when it
 * could not answer (down, slow, overloaded: the activity's retry policy backs off and tries again).
 */
export const INSURER_REFUSED = 'InsurerRefused';
export const INSURER_UNAVAILABLE = 'InsurerUnavailable';

/**
 * What a failed submission attempt tells an operator (the endorsement's details in the Web UI): the
 * error, bounded, and what to fix. Ids, codes and the insurer's own detail only, never a person's data
 * (adapters' messages are built that way). Workflow-safe: pure, no node modules.
 */
export interface SubmissionFailure {
  error: string;
  fix: string;
  /** The attempt that failed (1 for the first). */
  attempt: number;
}

/** An error line longer than this is cut (the details stay readable). */
export const MAX_FAILURE_TEXT = 500;

/**
 * The fix for a failed submission: the one the adapter named (a missing signing secret names the
 * worker's environment variable), else the one for its kind of failure.
 */
export function submissionFix(type: string | undefined, named: string | undefined): string {
  if (named) return named;
  if (type === INSURER_REFUSED) {
    return 'the insurer refused the submission: correct what its answer names, then cancel the endorsement and create it again';
  }
  if (type === INSURER_UNAVAILABLE) {
    return 'the insurer did not answer: check its base_url and the network from the worker; the submission is retried by itself';
  }
  return 'read the failing submit activity under Pending Activities; the submission is retried by itself';
}

/** The failure as the workflow keeps and shows it: one bounded line. */
export function submissionFailure(
  error: string,
  type: string | undefined,
  named: string | undefined,
  attempt: number,
): SubmissionFailure {
  const line = error.replace(/\s+/g, ' ').trim();
  return {
    error: line.length > MAX_FAILURE_TEXT ? `${line.slice(0, MAX_FAILURE_TEXT)}…` : line,
    fix: submissionFix(type, named).slice(0, MAX_FAILURE_TEXT),
    attempt,
  };
}
