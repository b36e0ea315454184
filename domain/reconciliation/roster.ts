/**
 * What a roster reconciliation can find, comparing the insurer's covered members (its roster) with
 * ours (active member rows of the policy):
 *
 * - `covered_there_not_here`: an active roster row that matches none of our active members.
 * - `covered_here_not_there`: one of our active members no active roster row matches.
 * - `field_mismatch`: a matched pair that differs in one field (member_name, date_of_birth,
 *   sum_insured, coverage_start_date, coverage_end_date, uhid); one difference per field.
 * - `missing_uhid`: we had no UHID for a matched member; the roster's is filled in (and audited).
 * - `explained_by_endorsement`: one of the first three while the employee has an open endorsement
 *   on the policy (`explains` names which): the insurer has not decided it yet, so not a discrepancy.
 */
export const DIFFERENCE_KINDS = [
  'covered_there_not_here',
  'covered_here_not_there',
  'field_mismatch',
  'missing_uhid',
  'explained_by_endorsement',
] as const;
export type DifferenceKind = (typeof DIFFERENCE_KINDS)[number];

/**
 * The reconciliation's rule (data/reconciliation/rosters.ts runs it as SQL, from these constants):
 * 1. Pairing, each of our members at most once: by UHID first; then, for the rows left, by the person:
 *    the employee code and the relationship, and for a dependent also the name (case and runs of
 *    spaces ignored) or the date of birth.
 * 2. Comparing a pair, field by field (COMPARED_FIELDS): the name and the date of birth always; the
 *    fields in COMPARED_WHEN_GIVEN only when the roster gives them (an insurer that leaves a column
 *    empty asserts nothing); a UHID only when both sides have one (ours missing is `missing_uhid`).
 * 3. Explaining: while the employee has an open endorsement on the policy (PENDING or
 *    SENT_TO_INSURER) a difference is `explained_by_endorsement`, except NEVER_EXPLAINED (a UHID the
 *    roster fills in is not waiting on a decision).
 */
export const COMPARED_FIELDS = [
  'member_name',
  'date_of_birth',
  'sum_insured',
  'coverage_start_date',
  'coverage_end_date',
  'uhid',
] as const;
export type ComparedField = (typeof COMPARED_FIELDS)[number];

/** Compared only when the roster gives a value (the UHID: only when both sides have one). */
export const COMPARED_WHEN_GIVEN: readonly ComparedField[] = [
  'sum_insured',
  'coverage_start_date',
  'coverage_end_date',
];

/** The difference an open endorsement never explains. */
export const NEVER_EXPLAINED: DifferenceKind = 'missing_uhid';

/** The number of differences of each kind (every kind named, zero included). */
export type DifferenceCounts = Record<DifferenceKind, number>;

export const RECONCILIATION_STATUSES = ['staged', 'completed', 'refused'] as const;
export type ReconciliationStatus = (typeof RECONCILIATION_STATUSES)[number];

/** What a reconciliation checked: the insurer's roster, or its CD statement (domain/reconciliation/cd-statement.ts). */
export const RECONCILIATION_KINDS = ['roster', 'cd_statement'] as const;
export type ReconciliationKind = (typeof RECONCILIATION_KINDS)[number];

/** Where a roster (or CD statement) came from. */
export const ROSTER_SOURCES = ['file', 'command', 'api'] as const;
export type RosterSource = (typeof ROSTER_SOURCES)[number];

/** A roster file in a file insurer's inbox: `ROSTER_<policy number>_<anything>.csv|xlsx` (any case). */
const ROSTER_FILE = /^roster_([A-Za-z0-9-]+)_.*\.(csv|xlsx)$/i;

/** The policy part of a roster file's name, or null when the file is not a roster. */
export function rosterFilePolicy(fileName: string): string | null {
  return ROSTER_FILE.exec(fileName)?.[1] ?? null;
}
