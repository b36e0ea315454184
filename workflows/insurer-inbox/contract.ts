/**
 * D14: file insurers' inboxes are polled by one Temporal Schedule; each tick runs one pass that
 * ingests every file insurer's waiting response files (usecases/insurer-exchange/inbox.ts).
 */
export const INSURER_INBOX_PASS = 'insurerInboxPassWorkflow';
export const INSURER_INBOX_SCHEDULE_ID = 'insurer-inbox';
export const INSURER_INBOX_INTERVAL_MS = 5 * 60_000;
/** A file changed this recently may still be uploading; the next tick reads it. */
export const INSURER_INBOX_MIN_AGE_MS = 60_000;

/** What a pass (or one insurer's part of it) did: counts only, no file content. */
export interface InboxPassResult {
  insurers: number;
  files: number;
  /** Files refused whole. */
  refused_files: number;
  accepted: number;
  duplicate: number;
  refused: number;
}

export const emptyInboxResult = (): InboxPassResult => ({
  insurers: 0,
  files: 0,
  refused_files: 0,
  accepted: 0,
  duplicate: 0,
  refused: 0,
});
