import { employeeFields } from '../schemas/employees.js';
import { isAmount, normaliseAmount } from '../premium.js';
import { isCalendarDate } from '../dates.js';
import type { Gender } from '../enums.js';

/**
 * A census (D16): one row per person, as HR keeps it. The columns are data, here only: their
 * headers are the downloadable templates' and what an uploaded file is matched against (case and
 * spacing aside); JSON rows use the field names.
 */
export const CENSUS_COLUMNS = [
  { field: 'employee_code', header: 'Employee Code' },
  { field: 'name', header: 'Name' },
  { field: 'email', header: 'Email' },
  { field: 'phone', header: 'Phone' },
  { field: 'date_of_birth', header: 'Date of Birth' },
  { field: 'gender', header: 'Gender' },
  { field: 'relationship', header: 'Relationship' },
  { field: 'event_date', header: 'Date of Joining or Event Date' },
  { field: 'sum_insured', header: 'Sum Insured' },
  { field: 'action', header: 'Action' },
  { field: 'effective_date', header: 'Effective Date' },
  { field: 'policy_id', header: 'Policy' },
] as const;
export type CensusField = (typeof CENSUS_COLUMNS)[number]['field'];
export const CENSUS_FIELDS: readonly CensusField[] = CENSUS_COLUMNS.map((c) => c.field);

/** D16's bounds on one census (domain/upload-limits.ts). */
export { MAX_CENSUS_BYTES, MAX_CENSUS_ROWS } from '../upload-limits.js';

export const CENSUS_ACTIONS = ['add', 'delete', 'modify'] as const;
export type CensusAction = (typeof CENSUS_ACTIONS)[number];
export const CENSUS_RELATIONSHIPS = [
  'self',
  'spouse',
  'son',
  'daughter',
  'father',
  'mother',
  'father-in-law',
  'mother-in-law',
] as const;
export type CensusRelationship = (typeof CENSUS_RELATIONSHIPS)[number];

/** One row's text cells by field; absent and empty cells are the same. */
export type CensusRecord = Partial<Record<CensusField, string>>;

/**
 * What a row's reason can tell about people other than the row's own cells: the cover the client's
 * employees hold (policies, open endorsements), or the stored employees and dependents themselves
 * (another's e-mail, a family's members). A dry run shows such a reason only to a token holding the
 * scopes that read it (census-visibility.ts).
 */
export type CensusFact = 'coverage' | 'employees';

/** One problem of one row: the field (column) and the rule it breaks. */
export interface RowError {
  field: CensusField | 'row';
  reason: string;
  /** Set when the reason tells a stored fact (see CensusFact); never presented. */
  reveals?: CensusFact;
}

/** A row whose cells each passed their own rule (what the plan reads). */
export interface CensusRow {
  /** 1-based position among the census's data rows (the header is not counted). */
  row: number;
  employeeCode: string;
  action: CensusAction;
  relationship: CensusRelationship;
  effectiveDate: string;
  name?: string;
  email?: string;
  phone?: string;
  dateOfBirth?: string;
  gender?: Gender;
  eventDate?: string;
  sumInsured?: string;
  policyId?: string;
}

/** Thrown for a census that cannot be read at all (not a table, no header, too many rows). */
export class MalformedCensus extends Error {}

const squash = (s: string) =>
  s
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, ' ');
const HEADER_FIELDS = new Map<string, CensusField>(
  CENSUS_COLUMNS.flatMap((c) => [
    [squash(c.header), c.field],
    [squash(c.field), c.field],
  ]),
);

/**
 * Maps a header row to fields by position. Unknown headers are refused (a misspelt column would
 * otherwise be silently empty), as is a column given twice; employee_code and action are needed.
 */
export function headerFields(header: readonly string[]): (CensusField | null)[] {
  const fields = header.map((h) => (h.trim() === '' ? null : (HEADER_FIELDS.get(squash(h)) ?? undefined)));
  const unknown = header.filter((_, i) => fields[i] === undefined);
  if (unknown.length > 0) {
    const known = CENSUS_COLUMNS.map((c) => c.header).join(', ');
    throw new MalformedCensus(
      `unknown column ${JSON.stringify(unknown[0]!.slice(0, 60))}; the columns are: ${known}`,
    );
  }
  const seen = new Set<CensusField>();
  for (const f of fields) {
    if (!f) continue;
    if (seen.has(f)) throw new MalformedCensus(`the column for ${f} is given twice`);
    seen.add(f);
  }
  for (const needed of ['employee_code', 'action', 'effective_date'] as const) {
    if (!seen.has(needed)) throw new MalformedCensus(`the header has no column for ${needed}`);
  }
  return fields as (CensusField | null)[];
}

/** A data row's cells as a record, by the header's fields. */
export function recordOf(fields: readonly (CensusField | null)[], cells: readonly string[]): CensusRecord {
  const record: CensusRecord = {};
  fields.forEach((f, i) => {
    const cell = cells[i]?.trim();
    if (f && cell) record[f] = cell;
  });
  return record;
}

const GENDERS: Record<string, Gender> = {
  m: 'MALE',
  male: 'MALE',
  gender_male: 'MALE',
  f: 'FEMALE',
  female: 'FEMALE',
  gender_female: 'FEMALE',
  o: 'OTHER',
  other: 'OTHER',
  gender_other: 'OTHER',
};

/** The zod rule of the employee create (one place for employee code, name, email, phone and date-of-birth rules). */
function fieldRule(field: CensusField, value: string): string | null {
  const schema =
    field === 'employee_code'
      ? employeeFields.employee_code
      : field === 'name'
        ? employeeFields.name
        : field === 'email'
          ? employeeFields.email
          : field === 'phone'
            ? employeeFields.phone_number
            : employeeFields.date_of_birth;
  const parsed = schema.safeParse(value);
  return parsed.success ? null : (parsed.error.issues[0]?.message ?? 'is invalid');
}

const oneOf = (values: readonly string[]) => `must be one of ${values.join(', ')}`;

/**
 * Checks each cell of one record against its own rule and collects every error (a row is reported
 * whole, never first-error-only). Whether the person's details are needed (a new employee) is the
 * plan's call, as it knows who exists.
 */
export function parseCensusRecord(row: number, r: CensusRecord): { row: CensusRow } | { errors: RowError[] } {
  const errors: RowError[] = [];
  const fail = failInto(errors);
  const code = r.employee_code ?? '';
  if (!code) fail('employee_code', 'is required');
  else if (code.length > 64) fail('employee_code', 'must be at most 64 characters');
  else {
    // The API's rule for `employee_id` (domain/text.ts: no control, invisible or formula-leading code).
    const reason = fieldRule('employee_code', code);
    if (reason) fail('employee_code', reason);
  }
  const action = r.action?.toLowerCase();
  if (!action) fail('action', 'is required');
  else if (!(CENSUS_ACTIONS as readonly string[]).includes(action)) fail('action', oneOf(CENSUS_ACTIONS));
  const relationship = (r.relationship ?? 'self').toLowerCase().replace(/\s+/g, '-');
  if (!(CENSUS_RELATIONSHIPS as readonly string[]).includes(relationship))
    fail('relationship', oneOf(CENSUS_RELATIONSHIPS));
  for (const f of ['effective_date', 'event_date'] as const) {
    const v = r[f];
    if (f === 'effective_date' && !v) fail(f, 'is required');
    else if (v && !isCalendarDate(v)) fail(f, 'must be a real calendar date in YYYY-MM-DD form');
  }
  for (const f of ['name', 'email', 'phone', 'date_of_birth'] as const) {
    const v = r[f];
    const reason = v === undefined ? null : fieldRule(f, v);
    if (reason) fail(f, reason);
  }
  const gender = r.gender === undefined ? undefined : GENDERS[r.gender.toLowerCase()];
  if (r.gender !== undefined && !gender) fail('gender', oneOf(['male', 'female', 'other']));
  if (r.sum_insured !== undefined && !isAmount(r.sum_insured.replace(/,/g, '')))
    fail('sum_insured', 'must be an amount with at most 2 decimals');
  if (r.policy_id !== undefined && !/^pol_[a-z0-9]{1,60}$/.test(r.policy_id))
    fail('policy_id', 'must be a policy id (pol_…)');
  if (errors.length > 0) return { errors };
  const parsed: CensusRow = {
    row,
    employeeCode: code,
    action: action as CensusAction,
    relationship: relationship as CensusRelationship,
    effectiveDate: r.effective_date!,
  };
  // Only the cells the row has (a census of ten thousand rows builds no throwaway objects here).
  if (r.name) parsed.name = r.name.trim();
  if (r.email) parsed.email = r.email.trim();
  if (r.phone) parsed.phone = r.phone;
  if (r.date_of_birth) parsed.dateOfBirth = r.date_of_birth;
  if (gender) parsed.gender = gender;
  if (r.event_date) parsed.eventDate = r.event_date;
  if (r.sum_insured) parsed.sumInsured = normaliseAmount(r.sum_insured.replace(/,/g, ''));
  if (r.policy_id) parsed.policyId = r.policy_id;
  return { row: parsed };
}

/**
 * A row's error collector. Made here, not as a closure in parseCensusRecord: the runtime's
 * function naming (tsx keeps names) costs each closure made a property definition, per row.
 */
function failInto(errors: RowError[]): (field: CensusField, reason: string) => void {
  return (field, reason) => void errors.push({ field, reason });
}
