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

export const COMPARED_FIELDS = [
  'member_name',
  'date_of_birth',
  'sum_insured',
  'coverage_start_date',
  'coverage_end_date',
  'uhid',
] as const;

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
