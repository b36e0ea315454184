import { toPaise, formatPaise } from '../premium.js';
import { headerKey } from '../insurer-exchange/response-file.js';
import { readRosterDate, readRupees } from './roster-file.js';

/**
 * The insurer's CD statement: its account of the employer's cash deposit over a period, compared with
 * our ledger (issue 17). The layout (CSV, or XLSX's first sheet; headers in any case and order, other
 * columns ignored): `type`, `date`, `reference`, `amount`. One `opening` row (the balance at the start
 * of its date), `posting` rows (signed rupees: a top-up or refund positive, a debit negative; the
 * reference is the top-up's, or our endorsement id, as in our endorsement files), one `closing` row
 * (the balance at the end of its date). Dates as YYYY-MM-DD or DD/MM/YYYY; amounts may carry
 * thousands separators (`1,00,000.00`).
 */

export class MalformedStatement extends Error {}

export const STATEMENT_COLUMNS = ['type', 'date', 'reference', 'amount'] as const;
type Column = (typeof STATEMENT_COLUMNS)[number];

export interface StatementPosting {
  row: number;
  date: string;
  reference: string;
  /** Signed paise: the balance's movement. */
  amount: bigint;
}

export interface CdStatement {
  from: string;
  to: string;
  opening: bigint;
  closing: bigint;
  postings: StatementPosting[];
}

/** Larger than any policy's year of postings: refused whole (domain/upload-limits.ts). */
import { MAX_STATEMENT_ROWS } from '../upload-limits.js';
export { MAX_STATEMENT_ROWS };

function signedPaise(text: string): bigint | null {
  const t = text.trim();
  const negative = t.startsWith('-');
  const plain = readRupees(negative ? t.slice(1) : t);
  if (plain === null) return null;
  return negative ? -toPaise(plain) : toPaise(plain);
}

/**
 * Reads a statement's table (header first, blank rows already skipped) into a statement, or throws
 * MalformedStatement naming the row and column (never a value): the statement is refused whole.
 */
export function readStatement(table: Iterable<{ rowNumber: number; cells: readonly string[] }>): CdStatement {
  const at = new Map<Column, number>();
  let opening: { date: string; amount: bigint } | undefined;
  let closing: { date: string; amount: bigint } | undefined;
  const postings: StatementPosting[] = [];
  const seen = new Set<string>();
  for (const { rowNumber, cells } of table) {
    if (at.size === 0) {
      cells.forEach((h, i) => {
        const k = headerKey(h) as Column;
        if (STATEMENT_COLUMNS.includes(k) && !at.has(k)) at.set(k, i);
      });
      const missing = STATEMENT_COLUMNS.filter((c) => !at.has(c));
      if (missing.length > 0) throw new MalformedStatement(`missing required headers: ${missing.join(', ')}`);
      continue;
    }
    if (postings.length >= MAX_STATEMENT_ROWS)
      throw new MalformedStatement(`more than ${MAX_STATEMENT_ROWS} postings`);
    const cell = (c: Column) => (cells[at.get(c)!] ?? '').trim();
    const bad = (c: Column, why: string) => new MalformedStatement(`row ${rowNumber}: ${c} ${why}`);
    const date = readRosterDate(cell('date'), 'DD/MM/YYYY');
    if (!date) throw bad('date', 'is not a date (YYYY-MM-DD or DD/MM/YYYY)');
    const amount = signedPaise(cell('amount'));
    if (amount === null) throw bad('amount', 'is not an amount in rupees (at most two decimals)');
    const type = headerKey(cell('type'));
    if (type === 'opening' || type === 'closing') {
      if ((type === 'opening' ? opening : closing) !== undefined) throw bad('type', `names a second ${type}`);
      if (type === 'opening') opening = { date, amount };
      else closing = { date, amount };
    } else if (type === 'posting') {
      const reference = cell('reference');
      if (!reference) throw bad('reference', 'is empty');
      if (seen.has(reference)) throw bad('reference', 'repeats an earlier posting');
      seen.add(reference);
      postings.push({ row: rowNumber, date, reference, amount });
    } else throw bad('type', 'is not opening, posting or closing');
  }
  if (at.size === 0) throw new MalformedStatement('the statement is empty (no header row)');
  if (!opening || !closing)
    throw new MalformedStatement('the statement needs one opening and one closing row');
  if (opening.date > closing.date) throw new MalformedStatement('the opening is dated after the closing');
  const outside = postings.find((p) => p.date < opening.date || p.date > closing.date);
  if (outside) throw new MalformedStatement(`row ${outside.row}: date is outside the statement's period`);
  return { from: opening.date, to: closing.date, opening: opening.amount, closing: closing.amount, postings };
}

export const STATEMENT_DIFFERENCE_KINDS = [
  'opening_mismatch',
  'closing_mismatch',
  'posting_there_not_here',
  'posting_here_not_there',
  'amount_mismatch',
] as const;
export type StatementDifferenceKind = (typeof STATEMENT_DIFFERENCE_KINDS)[number];

export interface StatementDifference {
  kind: StatementDifferenceKind;
  /** The posting's reference (ours: a top-up's reference or the endorsement id); null for the balances. */
  reference: string | null;
  /** The statement's row, when the difference has one. */
  row: number | null;
  ours: string | null;
  theirs: string | null;
}

/** Our side over the statement's period: the balance at its start and end, and the postings in it. */
export interface LedgerSide {
  opening: bigint;
  closing: bigint;
  /** Balance-moving entries (top-ups, debits, credits, adjustments), keyed by reference or endorsement id. */
  postings: { reference: string; amount: bigint }[];
}

/**
 * Compares the insurer's statement with our ledger over its period: the opening and closing
 * balances, then posting by reference (several entries of ours under one reference, e.g. an
 * endorsement's debit and a later credit, are added up). Pure: the same inputs, the same differences,
 * in a stable order (balances first, then the statement's rows, then ours by reference).
 */
export function compareStatement(statement: CdStatement, ours: LedgerSide): StatementDifference[] {
  const out: StatementDifference[] = [];
  const money = (p: bigint) => formatPaise(p);
  if (statement.opening !== ours.opening)
    out.push({
      kind: 'opening_mismatch',
      reference: null,
      row: null,
      ours: money(ours.opening),
      theirs: money(statement.opening),
    });
  if (statement.closing !== ours.closing)
    out.push({
      kind: 'closing_mismatch',
      reference: null,
      row: null,
      ours: money(ours.closing),
      theirs: money(statement.closing),
    });
  const mine = new Map<string, bigint>();
  for (const p of ours.postings) mine.set(p.reference, (mine.get(p.reference) ?? 0n) + p.amount);
  for (const p of statement.postings) {
    const here = mine.get(p.reference);
    mine.delete(p.reference);
    if (here === undefined)
      out.push({
        kind: 'posting_there_not_here',
        reference: p.reference,
        row: p.row,
        ours: null,
        theirs: money(p.amount),
      });
    else if (here !== p.amount)
      out.push({
        kind: 'amount_mismatch',
        reference: p.reference,
        row: p.row,
        ours: money(here),
        theirs: money(p.amount),
      });
  }
  for (const [reference, amount] of [...mine].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    out.push({ kind: 'posting_here_not_there', reference, row: null, ours: money(amount), theirs: null });
  return out;
}

/**
 * The statement's postings we have not recorded that can be posted as top-ups: positive, with a
 * reference that is not one of our endorsements (a refund the insurer shows before its approval
 * reaches us is credited by that approval, never as a top-up).
 */
export function unrecordedTopUps(
  statement: CdStatement,
  differences: readonly StatementDifference[],
  isEndorsementId: (reference: string) => boolean,
): StatementPosting[] {
  const missing = new Set(
    differences.filter((d) => d.kind === 'posting_there_not_here').map((d) => d.reference),
  );
  return statement.postings.filter(
    (p) => missing.has(p.reference) && p.amount > 0n && !isEndorsementId(p.reference),
  );
}

/** The number of differences of each kind (every kind named, zero included). */
export type StatementCounts = Record<StatementDifferenceKind, number>;

export function countStatementDifferences(differences: readonly StatementDifference[]): StatementCounts {
  const counts = Object.fromEntries(STATEMENT_DIFFERENCE_KINDS.map((k) => [k, 0])) as StatementCounts;
  for (const d of differences) counts[d.kind]++;
  return counts;
}

/** A CD statement in a file insurer's inbox: `CDSTATEMENT_<policy number>_<anything>.csv|xlsx` (any case). */
const STATEMENT_FILE = /^cdstatement_([A-Za-z0-9-]+)_.*\.(csv|xlsx)$/i;

/** The policy part of a CD statement file's name, or null when the file is not a CD statement. */
export function statementFilePolicy(fileName: string): string | null {
  return STATEMENT_FILE.exec(fileName)?.[1] ?? null;
}
