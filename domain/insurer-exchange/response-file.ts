import { z } from 'zod';
import { unsafeInsurerText, type InsurerDecision } from './decisions.js';

/**
 * An insurer's response file (D14): the answer to our endorsement file, one row per covered person
 * (the employee, each dependent), naming the endorsement by our id (the reference of the file we
 * sent) and the person by relationship and date of birth. Its layout is template data beside the
 * endorsement file's: column headers and the words for approved and rejected.
 */
export const RESPONSE_FIELDS = [
  'reference',
  'decision',
  'uhid',
  'insurer_member_id',
  'rejection_reason',
  'relationship',
  'date_of_birth',
] as const;
export type ResponseField = (typeof RESPONSE_FIELDS)[number];

/** A template may leave these out: its rows then answer for the employee alone, one per endorsement. */
const PERSON_FIELDS: readonly ResponseField[] = ['relationship', 'date_of_birth'];

/** Without these a file cannot be read at all; the other columns may be absent. */
export const REQUIRED_RESPONSE_FIELDS: readonly ResponseField[] = ['reference', 'decision'];

/** A response file with more data rows than this is refused whole (domain/upload-limits.ts). */
import { MAX_RESPONSE_ROWS } from '../upload-limits.js';
export { MAX_RESPONSE_ROWS };

/** Headers and decision words match whatever their case and spacing. */
export const headerKey = (s: string): string => s.trim().replace(/\s+/g, ' ').toLowerCase();

const word = z.string().trim().min(1).max(60);

export const responseLayoutSchema = z.strictObject({
  columns: z
    .array(z.strictObject({ header: word, field: z.enum(RESPONSE_FIELDS) }))
    .refine(
      (cols) =>
        RESPONSE_FIELDS.every((f) => {
          const n = cols.filter((c) => c.field === f).length;
          return n === 1 || (n === 0 && PERSON_FIELDS.includes(f));
        }),
      'must name each response field exactly once (relationship and date_of_birth at most once)',
    )
    .refine(
      (cols) => new Set(cols.map((c) => headerKey(c.header))).size === cols.length,
      'headers must be unique',
    ),
  /** The insurer's words for the two outcomes (matched without regard to case). */
  decisions: z.strictObject({ APPROVED: word, REJECTED: word }),
});
export type ResponseLayout = z.infer<typeof responseLayoutSchema>;

/** A row the file's table holds: the row number in the file (the header is row 1) and its cells. */
export interface ResponseTableRow {
  rowNumber: number;
  cells: readonly string[];
}

/** Who a row is about, as the insurer wrote it (template codes and date format; matched at ingest). */
export interface ResponsePerson {
  relationship: string;
  date_of_birth: string;
}

/**
 * One data row, read: a decision for the endorsement its reference names, or why it cannot be.
 * `person` only when the row names a relationship or a date of birth.
 */
export type ResponseRow =
  | { rowNumber: number; reference: string; decision: InsurerDecision; person?: ResponsePerson }
  | { rowNumber: number; reference: string; malformed: string };

export type ParsedResponseFile = { ok: true; rows: ResponseRow[] } | { ok: false; error: string };

const LIMITS: Partial<Record<ResponseField, number>> = {
  reference: 64,
  uhid: 100,
  insurer_member_id: 100,
  rejection_reason: 1000,
  relationship: 60,
  date_of_birth: 30,
};

/** Where each field sits in the header row, or the whole-file error. */
function columnsOf(layout: ResponseLayout, header: readonly string[]): Map<ResponseField, number> | string {
  const seen = new Map<string, number>();
  header.forEach((h, i) => {
    const key = headerKey(h);
    if (key && !seen.has(key)) seen.set(key, i);
  });
  const at = new Map<ResponseField, number>();
  for (const c of layout.columns) {
    const i = seen.get(headerKey(c.header));
    if (i !== undefined) at.set(c.field, i);
  }
  const missing = layout.columns.filter(
    (c) => REQUIRED_RESPONSE_FIELDS.includes(c.field) && !at.has(c.field),
  );
  if (missing.length > 0) {
    return `missing required headers: ${missing.map((c) => c.header).join(', ')} (the first row must be the header row)`;
  }
  return at;
}

/**
 * One data row. Only what the outcome needs is kept: the UHID and member id of an approval, the
 * reason of a rejection. A row's problem is described without repeating its values (they may be
 * personal data in the wrong column).
 */
function readRow(layout: ResponseLayout, at: Map<ResponseField, number>, row: ResponseTableRow): ResponseRow {
  const value = (f: ResponseField): string => {
    const i = at.get(f);
    return i === undefined ? '' : (row.cells[i] ?? '').trim();
  };
  const reference = value('reference').slice(0, 64);
  const bad = (why: string): ResponseRow => ({ rowNumber: row.rowNumber, reference, malformed: why });
  if (!reference) return bad('reference is empty');
  for (const [field, max] of Object.entries(LIMITS) as [ResponseField, number][]) {
    if (value(field).length > max) return bad(`${field} is longer than ${max} characters`);
  }
  // The insurer's text keeps the same rules as the decisions API's (a UHID `=1+1`, a control or bidi
  // character refuses the row, never the file).
  for (const field of ['uhid', 'insurer_member_id', 'rejection_reason'] as const) {
    const unsafe = unsafeInsurerText(field, value(field));
    if (unsafe) return bad(unsafe);
  }
  const person = { relationship: value('relationship'), date_of_birth: value('date_of_birth') };
  const withPerson = (r: ResponseRow): ResponseRow =>
    person.relationship || person.date_of_birth ? { ...r, person } : r;
  const word = headerKey(value('decision'));
  const { APPROVED, REJECTED } = layout.decisions;
  if (!word) return bad('decision is empty');
  if (word === headerKey(APPROVED)) {
    const decision: InsurerDecision = { decision: 'APPROVED' };
    if (value('uhid')) decision.uhid = value('uhid');
    if (value('insurer_member_id')) decision.insurer_member_id = value('insurer_member_id');
    return withPerson({ rowNumber: row.rowNumber, reference, decision });
  }
  if (word === headerKey(REJECTED)) {
    const reason = value('rejection_reason');
    if (!reason) return bad('a rejection needs a rejection reason');
    return withPerson({
      rowNumber: row.rowNumber,
      reference,
      decision: { decision: 'REJECTED', rejection_reason: reason },
    });
  }
  return bad(`decision must be ${APPROVED} or ${REJECTED}`);
}

/**
 * D14: reads a response file's table (the first row its header) into one decision per data row.
 * Whole-file problems (no header row, a required header missing, too many rows) refuse the file
 * whole, so nothing of it is applied; a row's own problem makes only that row malformed. Blank rows
 * (a spreadsheet's trailing ones) are skipped; row numbers are the file's own.
 */
export function parseResponseTable(
  layout: ResponseLayout,
  table: readonly ResponseTableRow[],
): ParsedResponseFile {
  const [header, ...data] = table.filter((r) => r.cells.some((c) => c.trim() !== ''));
  if (!header) return { ok: false, error: 'the file is empty (no header row)' };
  const at = columnsOf(layout, header.cells);
  if (typeof at === 'string') return { ok: false, error: at };
  if (data.length > MAX_RESPONSE_ROWS) {
    return { ok: false, error: `too many rows: ${data.length} (at most ${MAX_RESPONSE_ROWS})` };
  }
  return { ok: true, rows: data.map((row) => readRow(layout, at, row)) };
}

/** The outcome of one row of a response file, as recorded and acknowledged. */
export interface ResponseRowOutcome {
  row: number;
  reference: string;
  result: 'accepted' | 'duplicate' | 'refused';
  detail: string;
}

export const UNKNOWN_REFERENCE = 'unknown reference';

/**
 * How a row's answer reads in the file's outcome: "not found" (unknown, malformed or another
 * insurer's endorsement: one answer for all) reads as an unknown reference; a row that could not be
 * read as a malformed row with its reason; every other answer as the workflow gave it.
 */
export function rowOutcome(
  row: ResponseRow,
  answer: { result: ResponseRowOutcome['result']; detail: string } | null,
): ResponseRowOutcome {
  const base = { row: row.rowNumber, reference: row.reference };
  if ('malformed' in row) return { ...base, result: 'refused', detail: `malformed row (${row.malformed})` };
  if (!answer || (answer.result === 'refused' && answer.detail === 'not found')) {
    return { ...base, result: 'refused', detail: UNKNOWN_REFERENCE };
  }
  return { ...base, result: answer.result, detail: answer.detail };
}

/**
 * A row whose person could not be matched: refused with why, the endorsement's answer beside it
 * (its decision applies without this person's UHID); a row the reference's answer already refuses
 * keeps that answer.
 */
export function personOutcome(outcome: ResponseRowOutcome, problem: string | null): ResponseRowOutcome {
  if (!problem || outcome.result === 'refused') return outcome;
  return { ...outcome, result: 'refused', detail: `${problem}; the endorsement's answer: ${outcome.detail}` };
}

export type ResultCounts = Record<ResponseRowOutcome['result'], number>;

export function countResults(rows: readonly ResponseRowOutcome[]): ResultCounts {
  const counts: ResultCounts = { accepted: 0, duplicate: 0, refused: 0 };
  for (const r of rows) counts[r.result]++;
  return counts;
}

/** The acknowledgement's name: the response file's, made plain, with `.ack.csv`. */
export function acknowledgementName(fileName: string): string {
  const plain = fileName.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '') || 'response';
  return `${plain}.ack.csv`;
}

/**
 * The acknowledgement's table: row, reference, result, detail for every data row; a file refused
 * whole has one line saying why.
 */
export function acknowledgementTable(outcome: {
  error: string | null;
  rows: readonly ResponseRowOutcome[];
}): string[][] {
  const header = ['row', 'reference', 'result', 'detail'];
  if (outcome.error !== null) return [header, ['', '', 'refused', `file refused: ${outcome.error}`]];
  return [header, ...outcome.rows.map((r) => [String(r.row), r.reference, r.result, r.detail])];
}
