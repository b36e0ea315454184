import { z } from 'zod';
import { isCalendarDate, type DateFormat } from '../dates.js';
import { headerKey } from '../insurer-exchange/response-file.js';
import { unsafeTextReason } from '../text.js';

/**
 * The insurer's roster: its list of the people it covers on one policy. Its layout is template data
 * beside the endorsement and response files' (domain/insurer-exchange/file-templates): column headers and the
 * insurer's words for a covered and an ended member; relationships and dates as its endorsement file.
 */
export const ROSTER_FIELDS = [
  'uhid',
  'insurer_member_id',
  'policy_number',
  'employee_code',
  'member_name',
  'date_of_birth',
  'relationship',
  'sum_insured',
  'coverage_start_date',
  'coverage_end_date',
  'status',
] as const;
export type RosterField = (typeof ROSTER_FIELDS)[number];

/** Without these a roster cannot be compared; the other columns may be absent. */
export const REQUIRED_ROSTER_FIELDS: readonly RosterField[] = [
  'employee_code',
  'member_name',
  'date_of_birth',
  'relationship',
  'status',
];

/** Larger than any group policy we administer: refused whole (domain/upload-limits.ts). */
export { MAX_ROSTER_ROWS } from '../upload-limits.js';

const word = z.string().trim().min(1).max(60);

export const rosterLayoutSchema = z.strictObject({
  columns: z
    .array(z.strictObject({ header: word, field: z.enum(ROSTER_FIELDS) }))
    .refine(
      (cols) => ROSTER_FIELDS.every((f) => cols.filter((c) => c.field === f).length === 1),
      'must name each roster field exactly once',
    ),
  /** The insurer's words for a member it covers and one whose cover ended (any case). */
  statuses: z.strictObject({ ACTIVE: word, INACTIVE: word }),
});
export type RosterLayout = z.infer<typeof rosterLayoutSchema>;

/** The template parts a roster is read with. */
export interface RosterTemplate {
  roster: RosterLayout;
  date_format: DateFormat;
  relationships: Record<string, string>;
}

/** One roster row as staged in PostgreSQL: our spellings (YYYY-MM-DD, SELF/SPOUSE/…, rupees). */
export interface RosterRow {
  rowNumber: number;
  uhid: string | null;
  insurerMemberId: string | null;
  employeeCode: string;
  name: string;
  dateOfBirth: string;
  relationship: string;
  sumInsured: string | null;
  coverageStartDate: string | null;
  coverageEndDate: string | null;
  active: boolean;
}

/** A roster that cannot be read: refused whole, with why (never a cell's value). */
export class MalformedRoster extends Error {}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** A date in the template's format, or ISO (an XLSX date cell reads as YYYY-MM-DD); null if neither. */
export function readRosterDate(text: string, format: DateFormat): string | null {
  if (isCalendarDate(text)) return text;
  const m = /^(\d{1,2})[/-]([A-Za-z]{3}|\d{1,2})[/-](\d{4})$/.exec(text);
  if (!m || format === 'YYYY-MM-DD') return null;
  const month = /^\d+$/.test(m[2]!) ? Number(m[2]) : MONTHS.indexOf(m[2]!.toLowerCase()) + 1;
  const iso = `${m[3]}-${String(month).padStart(2, '0')}-${m[1]!.padStart(2, '0')}`;
  return isCalendarDate(iso) ? iso : null;
}

/** Rupees with up to two decimals ("500000", "5,00,000.50"), as numeric text; null if not money. */
export function readRupees(text: string): string | null {
  const plain = text.replace(/,/g, '');
  return /^\d{1,12}(\.\d{1,2})?$/.test(plain) ? plain : null;
}

/**
 * Reads a roster row by row (its table streamed: the header first, then the data rows): `header`
 * places the columns, `row` turns one data row into a staged row. Any problem refuses the roster
 * whole, saying which row and column, never the value.
 */
export function rosterReader(t: RosterTemplate, policyNumber: string) {
  const at = new Map<RosterField, number>();
  const relationships = new Map(
    Object.entries(t.relationships).map(([ours, theirs]) => [headerKey(theirs), ours]),
  );
  const statuses = new Map([
    [headerKey(t.roster.statuses.ACTIVE), true],
    [headerKey(t.roster.statuses.INACTIVE), false],
  ]);
  const headerOf = (f: RosterField) => t.roster.columns.find((c) => c.field === f)!.header;
  return {
    header(cells: readonly string[]): void {
      const seen = new Map(cells.map((h, i) => [headerKey(h), i] as const).reverse());
      for (const c of t.roster.columns) {
        const i = seen.get(headerKey(c.header));
        if (i !== undefined) at.set(c.field, i);
      }
      const missing = REQUIRED_ROSTER_FIELDS.filter((f) => !at.has(f)).map(headerOf);
      if (missing.length > 0) {
        throw new MalformedRoster(
          `missing required headers: ${missing.join(', ')} (the first row must be the header row)`,
        );
      }
    },
    row(rowNumber: number, cells: readonly string[]): RosterRow {
      const value = (f: RosterField) => {
        const i = at.get(f);
        return i === undefined ? '' : (cells[i] ?? '').trim();
      };
      const bad = (f: RosterField, why: string) =>
        new MalformedRoster(`row ${rowNumber}: ${headerOf(f)} ${why}`);
      const required = (f: RosterField, max: number) => {
        const v = value(f);
        if (!v) throw bad(f, 'is empty');
        if (v.length > max) throw bad(f, `is longer than ${max} characters`);
        return v;
      };
      const optional = (f: RosterField, max: number) => {
        const v = value(f);
        if (v.length > max) throw bad(f, `is longer than ${max} characters`);
        return v || null;
      };
      // The insurer's ids fill our members' empty ones: the text rules for identifiers apply
      // (domain/text.ts), as they do to the same ids in response files and the decisions API.
      const identifier = (f: RosterField) => {
        const v = optional(f, 100);
        const unsafe = v === null ? null : unsafeTextReason(v, 'identifier');
        if (unsafe) throw bad(f, unsafe);
        return v;
      };
      const date = (f: RosterField, v: string | null) => {
        if (v === null) return null;
        const d = readRosterDate(v, t.date_format);
        if (!d) throw bad(f, `is not a date (${t.date_format})`);
        return d;
      };
      const number = optional('policy_number', 100);
      if (number !== null && number !== policyNumber)
        throw bad('policy_number', "is not this policy's number");
      const relationship = relationships.get(headerKey(required('relationship', 60)));
      if (!relationship)
        throw bad('relationship', `must be one of ${Object.values(t.relationships).join(', ')}`);
      const active = statuses.get(headerKey(required('status', 60)));
      if (active === undefined)
        throw bad('status', `must be ${t.roster.statuses.ACTIVE} or ${t.roster.statuses.INACTIVE}`);
      const rupees = optional('sum_insured', 20);
      const sumInsured = rupees === null ? null : readRupees(rupees);
      if (rupees !== null && sumInsured === null) throw bad('sum_insured', 'is not an amount in rupees');
      return {
        rowNumber,
        uhid: identifier('uhid'),
        insurerMemberId: identifier('insurer_member_id'),
        employeeCode: required('employee_code', 100),
        name: required('member_name', 200),
        dateOfBirth: date('date_of_birth', required('date_of_birth', 20))!,
        relationship,
        sumInsured,
        coverageStartDate: date('coverage_start_date', optional('coverage_start_date', 20)),
        coverageEndDate: date('coverage_end_date', optional('coverage_end_date', 20)),
        active,
      };
    },
  };
}
