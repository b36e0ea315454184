import { tableRows } from '../../adapters/file/table-reader.js';
import {
  CENSUS_FIELDS,
  headerFields,
  MalformedCensus,
  MAX_CENSUS_ROWS,
  recordOf,
  type CensusField,
  type CensusRecord,
} from '../../domain/census/rows.js';
import { MalformedRoster } from '../../domain/reconciliation/roster-file.js';
import { CENSUS_FILE_LIMITS } from '../../domain/upload-limits.js';

/** A census as received: a file's bytes (CSV or XLSX) or JSON rows (objects keyed by field name). */
export type CensusInput =
  { kind: 'csv' | 'xlsx'; bytes: Buffer } | { kind: 'json'; rows: readonly unknown[] };

/** A census past D16's row bound (413). */
export class TooManyCensusRows extends Error {
  constructor() {
    super(`the census has more than ${MAX_CENSUS_ROWS} rows`);
  }
}

/** One data row: its position (1-based, header not counted), its cells, and shape errors of JSON rows. */
export interface CensusLine {
  row: number;
  record: CensusRecord;
  unknownFields: string[];
}

/**
 * The census's rows as records. Files are streamed through the table reader within
 * CENSUS_FILE_LIMITS (CSV through csv-parse, XLSX through exceljs's streaming reader: the first
 * sheet; blank rows count toward the file's row bound and are then skipped), yielding to the event
 * loop as they are parsed; a file past a bound throws UploadLimitExceeded as soon as it crosses it.
 * The first row is the header (domain/census/rows.ts matches its names). Counting stops at the first
 * data row past D16's bound.
 */
export async function readCensus(input: CensusInput): Promise<CensusLine[]> {
  const lines: CensusLine[] = [];
  for await (const line of censusLines(input)) lines.push(line);
  return lines;
}

/** readCensus's lines one at a time, as they are parsed (the same lines, the same refusals). */
export async function* censusLines(input: CensusInput): AsyncGenerator<CensusLine> {
  if (input.kind === 'json') {
    if (input.rows.length > MAX_CENSUS_ROWS) throw new TooManyCensusRows();
    for (let i = 0; i < input.rows.length; i++) yield jsonLine(i + 1, input.rows[i]);
    return;
  }
  let rows = 0;
  let fields: (CensusField | null)[] | null = null;
  try {
    for await (const { cells } of tableRows(`census.${input.kind}`, input.bytes, CENSUS_FILE_LIMITS)) {
      if (!fields) {
        fields = headerFields(cells);
        continue;
      }
      if (rows === MAX_CENSUS_ROWS) throw new TooManyCensusRows();
      rows += 1;
      yield { row: rows, record: recordOf(fields, cells), unknownFields: [] };
    }
  } catch (err) {
    if (err instanceof MalformedRoster)
      throw new MalformedCensus(err.message.replace(/^not a spreadsheet: /, ''));
    throw err;
  }
  if (!fields) throw new MalformedCensus('the census is empty: a header row is needed');
}

const FIELD_SET = new Set<string>(CENSUS_FIELDS);

/** A JSON row: strings (numbers as typed) by field name; anything else is the row's error. */
function jsonLine(row: number, value: unknown): CensusLine {
  const record: CensusRecord = {};
  const unknownFields: string[] = [];
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { row, record, unknownFields: ['(the row must be an object)'] };
  for (const [k, v] of Object.entries(value)) {
    if (!FIELD_SET.has(k)) unknownFields.push(k);
    else if (typeof v === 'string' || typeof v === 'number') {
      const text = String(v).trim();
      if (text) record[k as CensusField] = text;
    } else if (v !== null) unknownFields.push(`${k} (must be a string)`);
  }
  return { row, record, unknownFields };
}
