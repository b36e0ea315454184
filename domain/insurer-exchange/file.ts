import { z } from 'zod';
import { DATE_FORMATS, type DateFormat } from '../dates.js';
import { coveredRelationships } from '../endorsements/endorsement.js';
import type { CoverageType, EndorsementType, Gender, Relationship } from '../enums.js';
import { responseLayoutSchema } from './response-file.js';
import { rosterLayoutSchema } from '../reconciliation/roster-file.js';

/** What a column of an insurer's endorsement file holds. */
export const FILE_FIELDS = [
  'serial',
  'reference',
  'policy_number',
  'employee_code',
  'member_name',
  'relationship',
  'gender',
  'date_of_birth',
  'sum_insured',
  'effective_date',
  'end_date',
  'action',
] as const;
export type FileField = (typeof FILE_FIELDS)[number];

export { DATE_FORMATS, type DateFormat };

const word = z.string().trim().min(1).max(60);

/**
 * An insurer's endorsement-file template (D14): data, not code. Every code table is complete, so
 * a template that forgets a gender or a relationship is refused when it is loaded, not mid-file.
 */
export const fileTemplateSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9-]{1,40}$/),
  sheet_name: z.string().trim().min(1).max(31),
  date_format: z.enum(DATE_FORMATS),
  columns: z
    .array(z.strictObject({ header: word, field: z.enum(FILE_FIELDS) }))
    .min(1)
    .refine((cols) => cols.some((c) => c.field === 'reference'), 'must have a reference column')
    .refine((cols) => new Set(cols.map((c) => c.header)).size === cols.length, 'headers must be unique'),
  genders: z.strictObject({ MALE: word, FEMALE: word, OTHER: word }),
  relationships: z.strictObject({ SELF: word, SPOUSE: word, CHILD: word, PARENT: word, PARENT_IN_LAW: word }),
  /** CANCELLATION: the row that withdraws an endorsement the insurer already received (D7). */
  actions: z.strictObject({
    ADDITION: word,
    DELETION: word,
    CORRECTION: word,
    /** D17: a deleted member's cover restored without a gap (the effective date: the day after its end). */
    REINSTATEMENT: word,
    CANCELLATION: word,
  }),
  /** The layout of the insurer's response file (domain/insurer-exchange/response-file.ts). */
  response: responseLayoutSchema,
  /** The layout of the insurer's roster of covered members (domain/reconciliation/roster-file.ts). */
  roster: rosterLayoutSchema,
});
export type FileTemplate = z.infer<typeof fileTemplateSchema>;

export interface FilePerson {
  name: string;
  relationship: Relationship;
  gender: Gender;
  /** YYYY-MM-DD */
  dateOfBirth: string;
}

/** One endorsement as its insurer's file needs it, read from PostgreSQL at write time. */
export interface FileEndorsement {
  endorsementId: string;
  policyNumber: string;
  coverageType: CoverageType;
  type: EndorsementType;
  employeeCode: string;
  employee: Omit<FilePerson, 'relationship'>;
  /** All of the employee's dependents; the policy's coverage type decides who is listed. */
  dependents: FilePerson[];
  /** D16: a dependent's own endorsement: its one row, without the employee's. */
  dependentOnly?: boolean;
  coverageStartDate: string;
  coverageEndDate: string;
  /** Rupees with paise, as stored: "500000.00". */
  sumInsured: string;
  /** Cancelled after the insurer received it: its rows withdraw it (the CANCELLATION word). */
  withdrawal?: boolean;
}

export type FileCell = string | number;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A YYYY-MM-DD date in the template's format. */
export function formatFileDate(date: string, format: DateFormat): string {
  const [y = '', m = '', d = ''] = date.split('-');
  switch (format) {
    case 'YYYY-MM-DD':
      return date;
    case 'DD/MM/YYYY':
      return `${d}/${m}/${y}`;
    case 'DD-MM-YYYY':
      return `${d}-${m}-${y}`;
    case 'DD-MMM-YYYY':
      return `${d}-${MONTHS[Number(m) - 1] ?? m}-${y}`;
  }
}

/** Rupees as text, exact: whole rupees without paise ("500000"), otherwise two decimals. */
export const formatRupees = (amount: string): string => amount.replace(/\.00$/, '');

const ACTION: Record<EndorsementType, keyof FileTemplate['actions']> = {
  ENDORSEMENT_TYPE_ADDITION: 'ADDITION',
  ENDORSEMENT_TYPE_DELETION: 'DELETION',
  ENDORSEMENT_TYPE_MODIFICATION: 'CORRECTION',
  ENDORSEMENT_TYPE_REINSTATEMENT: 'REINSTATEMENT',
};

type Listed = {
  e: FileEndorsement;
  person: FilePerson | (Omit<FilePerson, 'relationship'> & { relationship: 'SELF' });
};

/**
 * The employee first, then the dependents the policy covers, in the order they were read; a
 * dependent's own endorsement lists that person only.
 */
function listed(e: FileEndorsement): Listed[] {
  const covered = new Set(coveredRelationships(e.coverageType));
  return [
    ...(e.dependentOnly ? [] : [{ e, person: { ...e.employee, relationship: 'SELF' as const } }]),
    ...e.dependents.filter((d) => covered.has(d.relationship)).map((person) => ({ e, person })),
  ];
}

/**
 * The people an endorsement's file rows list, in file order: the employee (SELF) first, then the
 * dependents the policy's coverage type covers; a dependent's own endorsement lists that person only.
 * What an insurer sees of an endorsement anywhere (its file, its backlog) is these people.
 */
export function listedPeople(e: FileEndorsement): Listed['person'][] {
  return listed(e).map(({ person }) => person);
}

function cell(t: FileTemplate, field: FileField, { e, person }: Listed, serial: number): FileCell {
  switch (field) {
    case 'serial':
      return serial;
    case 'reference':
      return e.endorsementId;
    case 'policy_number':
      return e.policyNumber;
    case 'employee_code':
      return e.employeeCode;
    case 'member_name':
      return person.name;
    case 'relationship':
      return t.relationships[person.relationship];
    case 'gender':
      return t.genders[person.gender];
    case 'date_of_birth':
      return formatFileDate(person.dateOfBirth, t.date_format);
    case 'sum_insured':
      return formatRupees(e.sumInsured);
    case 'effective_date':
      return formatFileDate(
        e.type === 'ENDORSEMENT_TYPE_DELETION' ? e.coverageEndDate : e.coverageStartDate,
        t.date_format,
      );
    case 'end_date':
      return formatFileDate(e.coverageEndDate, t.date_format);
    case 'action':
      return e.withdrawal ? t.actions.CANCELLATION : t.actions[ACTION[e.type]];
  }
}

/**
 * The file's table: the header row, then one row per covered person of each endorsement (the
 * employee, then the dependents the policy's coverage type covers), every row carrying our
 * endorsement id as its reference. A withdrawal repeats the rows the insurer received, with the
 * cancellation word as their action and the same reference. Serial numbers run 1..n over the file.
 */
export function insurerFileTable(t: FileTemplate, endorsements: readonly FileEndorsement[]): FileCell[][] {
  const people = endorsements.flatMap(listed);
  return [
    t.columns.map((c) => c.header),
    ...people.map((p, i) => t.columns.map((c) => cell(t, c.field, p, i + 1))),
  ];
}

export const FILE_FORMATS = ['xlsx', 'csv'] as const;
export type FileFormat = (typeof FILE_FORMATS)[number];

/** A code or policy number as our file names spell it: letters, digits and dashes only. */
export const fileNamePart = (s: string): string =>
  s.replace(/[^A-Za-z0-9-]+/g, '-').replace(/^-+|-+$/g, '') || 'x';

/**
 * Deterministic from (insurer code, policy number, cut-off instant in Asia/Kolkata): a retried
 * delivery of the same cut-off rewrites the same file name instead of adding a second file, and two
 * cut-offs of one day (a `flush` and the scheduled one) never share a name, so a later one never
 * replaces a file the insurer has not picked up yet.
 */
export function insurerFileName(
  q: { insurerCode: string; policyNumber: string; cutOffDate: string; cutOffTime: string },
  format: FileFormat,
): string {
  const stamp = `${q.cutOffDate.replaceAll('-', '')}_${q.cutOffTime.replaceAll(':', '')}`;
  return `${fileNamePart(q.insurerCode)}_${fileNamePart(q.policyNumber)}_${stamp}.${format}`;
}

function zonedParts(at: Date, timeZone: string): Record<string, string> {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  })
    .formatToParts(at)
    .reduce<Record<string, string>>((acc, p) => ({ ...acc, [p.type]: p.value }), {});
}

/** The calendar date (YYYY-MM-DD) of an instant in a time zone: the date a cut-off's files carry. */
export function cutOffDate(at: Date, timeZone: string): string {
  const parts = zonedParts(at, timeZone);
  return `${parts.year}-${parts.month}-${parts.day}`;
}

/** The wall-clock time (HH:MM:SS) of an instant in a time zone: the time a cut-off's files carry. */
export function cutOffTime(at: Date, timeZone: string): string {
  const parts = zonedParts(at, timeZone);
  return `${parts.hour}:${parts.minute}:${parts.second}`;
}

/** One delivered file: ids and counts only (no personal data), safe to log and to return. */
export interface DeliveredFile {
  file_name: string;
  format: FileFormat;
  destination: string;
  client_id: string;
  policy_id: string;
  policy_number: string;
  /** The endorsements the file carries, which now count as delivered to the insurer. */
  endorsement_ids: string[];
  /** Endorsements cancelled after an earlier file: this file's cancellation rows withdraw them. */
  withdrawal_ids: string[];
  /** Data rows (people), the header not counted. */
  rows: number;
}

/** One policy's share of a cut-off: its endorsements and the name of its file in each format. */
export interface PlannedPolicyFile {
  client_id: string;
  policy_id: string;
  policy_number: string;
  endorsement_ids: string[];
  /** Withdrawals the policy's file carries; absent in plans made before withdrawals existed. */
  withdrawal_ids?: string[];
  files: { file_name: string; format: FileFormat }[];
}
