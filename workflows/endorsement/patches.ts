/**
 * The endorsement workflow's patches (docs/operators/README.md, "Deploying workflow changes").
 * REVIEW_HOLD_AND_ROUTE and SLA_WATCH_TOLD, the last two, are at step 0: `patched(NAME)` with both
 * branches, the old one for the runs that passed that point without its marker (every run started
 * before it shipped).
 *
 * Every other one is at step 1: the old branch is gone and the call is `deprecatePatch(NAME)`. The
 * new path always runs; a run that recorded the marker under `patched(NAME)` (every run started
 * since release ada53c6, whose histories are test/workflows/histories/ada53c6) still replays, and
 * a run started on a release before the patch no longer does, so the deprecation shipped only once
 * none of those was open. Step 2 (the call removed) waits until no open run started before the
 * release that deprecated them (the one after ada53c6) either: until then the call keeps matching
 * the marker those runs recorded. Each id below is the marker's name in every recorded history: never
 * change one.
 */

/**
 * Insurer calls safe to cancel: the adapter heartbeats (a cancel reaches a running call; a dead
 * worker is noticed within seconds), a cancel waits until the submit has ended or confirmed its
 * cancellation (so the withdraw never overtakes it), and a submit that cannot reach the insurer
 * within the SLA gives up into the stuck path instead of retrying for ever.
 */
export const CANCEL_SAFE_INSURER_CALLS = 'cancel-safe-insurer-calls';

/**
 * The short database steps before the insurer call (review, the CD hold, routing, and the SLA
 * watch's read of who has the endorsement) run as local activities: in the worker, inside the
 * workflow task, without an activity task and a workflow task of their own on the server each
 * (docs/performance.md, "What changed a row").
 */
export const LOCAL_DATABASE_STEPS = 'local-database-steps';

/**
 * The CD account: after review the endorsement holds what it will cost, or waits in PENDING for
 * funds (AwaitingFunds) until a top-up places its hold; the review no longer rejects a balance short
 * of the premium.
 */
export const CD_HOLD = 'cd-hold';

/**
 * D14 file insurers: one activity routes after review; a file insurer's endorsement stays PENDING
 * until its insurer's cut-off has delivered the file carrying it, any other is marked SENT_TO_INSURER
 * by the same activity.
 */
export const FILE_INSURER_CUT_OFF = 'file-insurer-cut-off';

/**
 * The insurer SLA's second tier (D14) and the backlog search attributes (InsurerId, SubmittedAt,
 * SlaDueAt) for an endorsement submitted through its adapter (a file insurer's watch came with the
 * cut-off and never had this marker).
 */
export const INSURER_SLA = 'insurer-sla-second-tier';

/**
 * D14: a decision recorded while the submit is still trying ends the submit as a cancel does
 * (waiting for its end) and is applied at once, instead of after the submit's schedule-to-close.
 */
export const DECISION_ENDS_SUBMISSION = 'decision-ends-submission';

/**
 * D7 for file insurers: a cancel after the file was delivered queues a withdrawal that the next
 * cut-off's file carries (a cancellation row).
 */
export const FILE_INSURER_WITHDRAWAL = 'file-insurer-withdrawal';

/**
 * The approval tried once as a local activity in the workflow task that sees the decision, then
 * handed to the activity on any failure of that attempt (docs/performance.md, "What changed a row").
 */
export const LOCAL_APPROVAL = 'local-approval-first';

/** The simulated insurer answers through the decision Update (D14), as every insurer path. */
export const SIMULATED_INSURER_UPDATE = 'simulated-insurer-decides-by-update';

/**
 * The review, the CD hold and the routing in one local activity (`reviewHoldAndRoute`) instead of
 * three: one activation and one marker per endorsement where there were three (docs/performance.md,
 * "What changed a row"). A balance short of the premium stops it after the hold; the wait for funds
 * and the routing after it are as before.
 */
export const REVIEW_HOLD_AND_ROUTE = 'review-hold-and-route';

/**
 * The insurer SLA's watch starts from who has the endorsement and since when as the step that sent
 * it says them: a file insurer's cut-off signal (its statement's own instant), any other insurer's
 * routing answer (read in the same call, right after the change), instead of a local activity of its
 * own reading them back: one activation fewer per endorsement, and for a file insurer one read
 * (docs/performance.md, "What changed a row"). A signal or an answer without them (from a release
 * before this one) still reads them.
 */
export const SLA_WATCH_TOLD = 'sla-watch-told';
