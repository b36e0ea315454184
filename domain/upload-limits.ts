import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Every bound on a file or body the service reads, in one place. A file is read as a stream and
 * refused as soon as it crosses one of these (UploadLimitExceeded), so what one file can cost (CPU,
 * memory, disk) is set here and not by the file. The data-row bounds are the domain's (D16 for the
 * census); the rest exist so that no file can make a reader do work out of proportion to them.
 */

const KiB = 1024;
const MiB = 1024 * KiB;

/** D16: rows of one census (people, not counting the header or blank rows). */
export const MAX_CENSUS_ROWS = 10_000;
/** D16: bytes of one census upload (CSV, XLSX or JSON). */
export const MAX_CENSUS_BYTES = 10 * MiB;
/** Larger than any group policy we administer: a roster past it is refused whole. */
export const MAX_ROSTER_ROWS = 500_000;
/** A response file with more data rows than this is refused whole (a cut-off writes far fewer). */
export const MAX_RESPONSE_ROWS = 20_000;
/** Larger than any policy's year of postings: a statement past it is refused whole. */
export const MAX_STATEMENT_ROWS = 100_000;

/**
 * Blank rows a file may carry besides its data rows and header (a spreadsheet's trailing or
 * separating ones). Blank rows are counted like any other: skipping them uncounted let a 2 MB file
 * of a million empty lines cost a minute of parsing before any row was counted.
 */
export const BLANK_ROW_ALLOWANCE = 1_000;

/**
 * Cells of one row. The widest layout we read has 12 columns; a spreadsheet's stray trailing
 * columns stay far below this, and a row of 16,384 cells (XLSX's last column) costs a reader
 * 16,384 slots per row.
 */
export const MAX_CELLS_PER_ROW = 256;

/** Characters of one cell: a name, an address or a rejection reason (at most 1,000) fits many times. */
export const MAX_CELL_CHARS = 4_096;

/**
 * How much of a file a reader parses before it lets the event loop run other requests: small enough
 * that parsing one piece takes a few milliseconds whatever it holds, large enough that the turns of
 * the loop between pieces cost little (measured: docs/security/uploads.md). CSV is the costliest
 * per byte (a 2 KiB piece is up to 1,024 rows, each ragged one costing csv-parse an error object);
 * an XLSX part's XML next (a 4 KiB piece is up to ~680 empty `<row/>`s, each an exceljs row);
 * a JSON body is only scanned for its structure before JSON.parse.
 */
export const CSV_PIECE_BYTES = 2 * KiB;
export const XML_PIECE_BYTES = 4 * KiB;
export const JSON_PIECE_BYTES = 64 * KiB;
/**
 * Rows of a file handled between turns of the event loop once it is read (D18): a census is planned
 * (D7's checks, premium, CD forecast), its report presented and written, and its rows stored this
 * many at a time, a few milliseconds each, so a valid census at D16's bound holds no other request
 * for long either (measured: docs/security/uploads.md).
 */
export const ROWS_PER_TURN = 500;

/**
 * The items ROWS_PER_TURN at a time, in order, each piece after the first once the event loop has
 * had a turn (D18): other requests run between the pieces of a long file's work.
 */
export async function* inTurns<T>(items: readonly T[]): AsyncGenerator<T[]> {
  for (let at = 0; at < items.length; at += ROWS_PER_TURN) {
    if (at > 0) await nextTurn();
    yield items.slice(at, at + ROWS_PER_TURN);
  }
}

/** The bounds of one kind of tabular file (CSV, or the first sheet of an XLSX workbook). */
export interface TableLimits {
  /** What the file is called in a refusal ("census", "roster", ...). */
  what: string;
  /** Bytes of the file as received (an XLSX's compressed size). */
  bytes: number;
  /** Rows of the file, blank ones and the header included (an XLSX row number counts too). */
  rows: number;
  cellsPerRow: number;
  cellChars: number;
  /** Entries of an XLSX's shared strings table (each costs a string held for the whole read). */
  sharedStrings: number;
  /** Bytes of an XLSX's parts once inflated, all parts together (a zip bomb is refused here). */
  inflatedBytes: number;
  /** Parts (zip entries) of an XLSX workbook; an ordinary workbook has about ten. */
  parts: number;
}

const tableRows = (dataRows: number) => dataRows + 1 + BLANK_ROW_ALLOWANCE;

/** A census upload (D16): read by the API while the client waits. */
export const CENSUS_FILE_LIMITS: TableLimits = {
  what: 'census',
  bytes: MAX_CENSUS_BYTES,
  rows: tableRows(MAX_CENSUS_ROWS),
  cellsPerRow: MAX_CELLS_PER_ROW,
  cellChars: MAX_CELL_CHARS,
  // Every cell of 10,000 rows of the 12 census columns distinct, with room to spare.
  sharedStrings: 200_000,
  // 10,000 rows as inline strings are ~15 MiB of sheet XML.
  inflatedBytes: 64 * MiB,
  parts: 100,
};

/** An insurer's roster (file inbox, SFTP or the insurer's API): read by the worker. */
export const ROSTER_FILE_LIMITS: TableLimits = {
  what: 'roster',
  // 500,000 members at ~150 bytes a CSV row is ~75 MiB.
  bytes: 256 * MiB,
  rows: tableRows(MAX_ROSTER_ROWS),
  cellsPerRow: MAX_CELLS_PER_ROW,
  cellChars: MAX_CELL_CHARS,
  // Names, codes and ids of 500,000 members are distinct: a few millions.
  sharedStrings: 5_000_000,
  inflatedBytes: 1024 * MiB,
  parts: 100,
};

/** An insurer's response file (D14): read by the worker from the inbox. */
export const RESPONSE_FILE_LIMITS: TableLimits = {
  what: 'response file',
  bytes: 20 * MiB,
  rows: tableRows(MAX_RESPONSE_ROWS),
  cellsPerRow: MAX_CELLS_PER_ROW,
  cellChars: MAX_CELL_CHARS,
  sharedStrings: 200_000,
  inflatedBytes: 128 * MiB,
  parts: 100,
};

/** An insurer's CD statement: read by the worker or the insurer command. */
export const STATEMENT_FILE_LIMITS: TableLimits = {
  what: 'statement',
  bytes: 20 * MiB,
  rows: tableRows(MAX_STATEMENT_ROWS),
  cellsPerRow: MAX_CELLS_PER_ROW,
  cellChars: MAX_CELL_CHARS,
  sharedStrings: 500_000,
  inflatedBytes: 256 * MiB,
  parts: 100,
};

/** Values (objects, arrays, strings, numbers, booleans, nulls) of one JSON body (D11). */
export const MAX_JSON_NODES = 50_000;
/** Nesting of one JSON body: deeper than any request; recursive readers (the idempotency hash) stay safe. */
export const MAX_JSON_DEPTH = 32;
/**
 * Bytes of a JSON body on the routes that take more than the default 1 MiB (a census as JSON rows):
 * MAX_JSON_NODES values of up to ~80 bytes each. JSON.parse of this much takes ~20 ms.
 */
export const MAX_JSON_BODY_BYTES = 4 * MiB;

/** Which bound a file crossed; `tooLarge` ones answer 413, the others (a file's shape) 400. */
export type UploadLimit =
  'bytes' | 'rows' | 'cellsPerRow' | 'cellChars' | 'sharedStrings' | 'inflatedBytes' | 'parts';

const SIZE_LIMITS: readonly UploadLimit[] = ['bytes', 'rows', 'sharedStrings', 'inflatedBytes', 'parts'];

const shownBytes = (n: number) =>
  n % MiB === 0 ? `${n / MiB} MiB` : n % KiB === 0 ? `${n / KiB} KiB` : `${n} bytes`;

const WORDS: Record<UploadLimit, (l: TableLimits) => string> = {
  bytes: (l) => `the ${l.what} is larger than ${shownBytes(l.bytes)}`,
  rows: (l) => `the ${l.what} has more than ${l.rows} rows (blank rows count)`,
  cellsPerRow: (l) => `a row of the ${l.what} has more than ${l.cellsPerRow} cells`,
  cellChars: (l) => `a cell of the ${l.what} holds more than ${l.cellChars} characters`,
  sharedStrings: (l) => `the ${l.what} has more than ${l.sharedStrings} shared strings`,
  inflatedBytes: (l) => `the ${l.what} inflates to more than ${shownBytes(l.inflatedBytes)}`,
  parts: (l) => `the ${l.what} has more than ${l.parts} parts`,
};

/** A file past one of its bounds: refused whole, as soon as the bound was crossed. */
export class UploadLimitExceeded extends Error {
  readonly tooLarge: boolean;
  constructor(
    readonly limit: UploadLimit,
    readonly limits: TableLimits,
  ) {
    super(WORDS[limit](limits));
    this.tooLarge = SIZE_LIMITS.includes(limit);
  }
}
