import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Readable, type Duplex, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { parse } from 'csv-parse';
import ExcelJS from 'exceljs';
import { MalformedRoster } from '../../domain/reconciliation/roster-file.js';
import {
  CSV_PIECE_BYTES,
  XML_PIECE_BYTES,
  UploadLimitExceeded,
  type TableLimits,
  type UploadLimit,
} from '../../domain/upload-limits.js';
import { cellText, extension } from './cell-text.js';

/** One row of a table file: its number in the file (the header is row 1) and its cells as text. */
export interface TableRow {
  rowNumber: number;
  cells: string[];
}

/** A file as bytes already held (an upload) or as a stream (a file on disk, an HTTP body). */
export type TableInput = Buffer | AsyncIterable<Buffer | Uint8Array>;

/**
 * The input in pieces of at most `size` bytes, each after a turn of the event loop, so the
 * parser behind it never holds the loop for more than one piece; refused once past the byte bound.
 */
async function* yieldingPieces(input: TableInput, limits: TableLimits, size: number): AsyncGenerator<Buffer> {
  const chunks = Buffer.isBuffer(input) ? [input] : input;
  let total = 0;
  for await (const chunk of chunks) {
    total += chunk.length;
    if (total > limits.bytes) throw new UploadLimitExceeded('bytes', limits);
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    for (let at = 0; at < bytes.length; at += size) {
      yield bytes.subarray(at, at + size);
      await nextTurn();
    }
  }
}

function checkCells(cells: readonly string[], limits: TableLimits): void {
  if (cells.length > limits.cellsPerRow) throw new UploadLimitExceeded('cellsPerRow', limits);
  for (const c of cells) if (c.length > limits.cellChars) throw new UploadLimitExceeded('cellChars', limits);
}

const blank = (cells: readonly string[]) => cells.every((c) => c.trim() === '');

/**
 * csv-parse builds an Error for every row whose length differs from the first row's, even when told
 * to accept such rows (relax_column_count) and then drops it: capturing those stack traces cost
 * ~100 µs a row, most of a hostile file's parsing. Without traces the same errors cost little. The
 * write is synchronous, so no other code runs while traces are off.
 */
function writeUntraced(parser: Writable, piece: Buffer): void {
  const traces = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    parser.write(piece);
  } finally {
    Error.stackTraceLimit = traces;
  }
}

/**
 * CSV through csv-parse, fed in yielding pieces and driven by hand: each piece is parsed as it is
 * written and its records taken at once (at most one piece's records wait), without the per-record
 * promise of a stream's async iteration, which costs more than the parsing. Every record counts
 * toward the row bound, blank ones too (they are then skipped); a record longer than a row's cells
 * can hold stops the parser before it buffers more of an unterminated quote.
 */
async function* csvRows(input: TableInput, limits: TableLimits): AsyncGenerator<TableRow> {
  // No `info`: the parser's per-record details cost it several times its own work.
  const parser = parse({
    bom: true,
    relax_column_count: true,
    skip_empty_lines: false,
    max_record_size: limits.cellsPerRow * limits.cellChars,
  });
  const parsing: { failure?: Error } = {};
  parser.on('error', (err: Error) => (parsing.failure = err));
  // Flowing: a piece's records arrive while it is written (paused reading was a hundred times slower).
  const pending: string[][] = [];
  // The length the parser checks the next record against is set to this one's (it never refuses a
  // ragged row here): a run of rows of one length then builds no error objects at all.
  const state = (parser as unknown as { state: { expectedRecordLength?: number } }).state;
  parser.on('data', (record: string[]) => {
    pending.push(record);
    state.expectedRecordLength = record.length;
  });
  const done = new Promise<void>((resolve) => {
    parser.once('finish', resolve);
    parser.once('close', resolve);
  });
  let rows = 0;
  function* records(): Generator<TableRow> {
    if (parsing.failure) throw parsing.failure;
    const taken = pending.splice(0);
    for (const record of taken) {
      if (++rows > limits.rows) throw new UploadLimitExceeded('rows', limits);
      checkCells(record, limits);
      if (record.some((c) => c.includes('\u0000'))) {
        throw new MalformedRoster('not a spreadsheet: the CSV file holds binary data');
      }
      // The record's position, blank ones counted: the file's line unless a quoted cell spans lines.
      if (!blank(record)) yield { rowNumber: rows, cells: record };
    }
  }
  try {
    for await (const piece of yieldingPieces(input, limits, CSV_PIECE_BYTES)) {
      writeUntraced(parser, piece);
      yield* records();
    }
    parser.end();
    await done;
    yield* records();
    if (parsing.failure) throw parsing.failure;
  } catch (err) {
    if (err instanceof MalformedRoster || err instanceof UploadLimitExceeded) throw err;
    // The parser's code and line, never its message (it quotes the file's text).
    const e = err as { code?: unknown; lines?: unknown };
    if (e.code === 'CSV_MAX_RECORD_SIZE') throw new UploadLimitExceeded('cellChars', limits);
    const why = typeof e.code === 'string' ? e.code : 'unreadable';
    const line = typeof e.lines === 'number' ? ` at line ${e.lines}` : '';
    throw new MalformedRoster(`not a spreadsheet: the CSV file cannot be read (${why}${line})`);
  } finally {
    parser.destroy();
  }
}

/** exceljs's own unzipper (its dependency, the one its streaming reader reads workbooks with). */
interface ZipEntry extends Readable {
  path: string;
  autodrain(): unknown;
}
const unzipper = createRequire(import.meta.url)('unzipper') as {
  Parse(o: { forceStream: true }): Duplex & AsyncIterable<ZipEntry>;
};

/** The parts of exceljs's WorkbookReader that its parse loop calls (lib/stream/xlsx/workbook-reader.js). */
interface WorkbookReaderParts {
  input: Readable;
  stream: Readable;
  sharedStrings?: unknown[];
  workbookRels?: unknown;
  _parseRels(entry: Readable): Promise<void>;
  _parseWorkbook(entry: Readable): Promise<void>;
  _parseSharedStrings(entry: Readable): AsyncGenerator<unknown>;
  _parseStyles(entry: Readable): Promise<void>;
  _parseWorksheet(parts: AsyncIterable<string>, sheetNo: string): Generator<unknown>;
}

const SHEET = /^xl\/worksheets\/sheet(\d+)\.xml$/;

/**
 * Counts opening tags (`<row`, `<si`) in raw XML as it passes, across piece boundaries (the last
 * bytes of a piece are kept for the next): each is a row or shared string however the XML parser
 * later treats it, so an element exceljs skips unreported (an empty `<row/>`) still counts.
 */
class TagCounter {
  private tail = Buffer.alloc(0);
  count = 0;
  constructor(private readonly tag: Buffer) {}
  add(chunk: Buffer): number {
    const text = this.tail.length > 0 ? Buffer.concat([this.tail, chunk]) : chunk;
    for (let at = text.indexOf(this.tag); at !== -1; at = text.indexOf(this.tag, at + 1)) {
      const next = text[at + this.tag.length];
      if (next === undefined) break; // decided with the next piece
      // `<row>`, `<row/>`, `<row r=…>`; not `<rows…>` or `<sign…>`.
      if (next === 0x3e || next === 0x2f || next === 0x20 || next === 0x09 || next === 0x0a || next === 0x0d)
        this.count++;
    }
    this.tail = Buffer.from(text.subarray(Math.max(0, text.length - this.tag.length)));
    return this.count;
  }
}

/**
 * A part's XML as text in pieces of at most XML_PIECE_BYTES, each after a turn of the event loop
 * (exceljs's XML parser then never holds the loop for more than one piece), decoded across piece
 * boundaries so a character split between two pieces stays whole; `check` sees each piece first.
 */
async function* textPieces(
  source: AsyncIterable<Buffer>,
  check: (piece: Buffer) => void = () => undefined,
): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  for await (const chunk of source) {
    for (let at = 0; at < chunk.length; at += XML_PIECE_BYTES) {
      const piece = chunk.subarray(at, at + XML_PIECE_BYTES);
      check(piece);
      yield decoder.write(piece);
      await nextTurn();
    }
  }
  yield decoder.end();
}

/**
 * One workbook's read, bounded: every part's inflated bytes count toward one budget, and rows and
 * shared strings are counted on the raw XML as it passes.
 */
class WorkbookBudget {
  private inflated = 0;
  private parts = 0;
  constructor(private readonly limits: TableLimits) {}

  part(): void {
    if (++this.parts > this.limits.parts) throw new UploadLimitExceeded('parts', this.limits);
  }

  text(entry: AsyncIterable<Buffer>, counted?: { tag: string; limit: UploadLimit; max: number }) {
    const counter = counted ? new TagCounter(Buffer.from(counted.tag)) : null;
    return textPieces(entry, (piece) => {
      this.inflated += piece.length;
      if (this.inflated > this.limits.inflatedBytes)
        throw new UploadLimitExceeded('inflatedBytes', this.limits);
      if (counter && counted && counter.add(piece) > counted.max)
        throw new UploadLimitExceeded(counted.limit, this.limits);
    });
  }
}

/**
 * exceljs's WorkbookReader.parse with every part read through the budget. Worksheets met before
 * the shared strings (Excel writes them in that order) wait in a temporary file as exceljs's do,
 * counted as they are written, so the disk they take is bounded too.
 */
async function* boundedParse(this: WorkbookReaderParts, limits: TableLimits): AsyncGenerator<unknown> {
  const budget = new WorkbookBudget(limits);
  const rows = { tag: '<row', limit: 'rows' as const, max: limits.rows };
  const zip = unzipper.Parse({ forceStream: true });
  this.stream = this.input;
  this.input.on('error', (err) => zip.destroy(err));
  this.input.pipe(zip);
  const waiting: { sheetNo: string; file: string }[] = [];
  let dir: string | undefined;
  try {
    for await (const entry of zip) {
      budget.part();
      const sheetNo = SHEET.exec(entry.path)?.[1];
      if (entry.path === 'xl/_rels/workbook.xml.rels')
        await this._parseRels(Readable.from(budget.text(entry)));
      else if (entry.path === 'xl/workbook.xml') await this._parseWorkbook(Readable.from(budget.text(entry)));
      else if (entry.path === 'xl/styles.xml') await this._parseStyles(Readable.from(budget.text(entry)));
      else if (entry.path === 'xl/sharedStrings.xml') {
        const strings = { tag: '<si', limit: 'sharedStrings' as const, max: limits.sharedStrings };
        yield* this._parseSharedStrings(Readable.from(budget.text(entry, strings)));
      } else if (sheetNo !== undefined && this.sharedStrings && this.workbookRels) {
        yield* this._parseWorksheet(budget.text(entry, rows), sheetNo);
      } else if (sheetNo !== undefined) {
        dir ??= await mkdtemp(path.join(os.tmpdir(), 'workbook-'));
        const file = path.join(dir, `sheet${sheetNo}.xml`);
        await pipeline(Readable.from(budget.text(entry, rows)), createWriteStream(file, { mode: 0o600 }));
        waiting.push({ sheetNo, file });
      } else {
        // Not read (themes, properties…), but inflated all the same: counted like the rest.
        for await (const _ of budget.text(entry));
      }
      entry.autodrain();
    }
    for (const { sheetNo, file } of waiting) {
      // Counted when written; read back in yielding pieces.
      yield* this._parseWorksheet(textPieces(createReadStream(file) as AsyncIterable<Buffer>), sheetNo);
    }
  } finally {
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}

/**
 * XLSX through exceljs's streaming WorkbookReader, bounded (boundedParse): the first sheet, row by
 * row (shared strings and styles cached, the latter so date cells read as dates); later sheets are
 * skipped unread. A row number past the row bound is refused even where the rows before it are
 * absent from the file.
 */
async function* xlsxRows(input: TableInput, limits: TableLimits): AsyncGenerator<TableRow> {
  // The compressed file itself is inflated off the loop (zlib), so its pieces can be larger.
  const feed = Readable.from(yieldingPieces(input, limits, 64 * 1024));
  const book = new ExcelJS.stream.xlsx.WorkbookReader(feed, {
    worksheets: 'emit',
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
    entries: 'ignore',
  });
  Object.assign(book, { parse: () => boundedParse.call(book as unknown as WorkbookReaderParts, limits) });
  let sheets = 0;
  try {
    for await (const sheet of book) {
      if (sheets++ > 0) break;
      for await (const row of sheet) {
        if (row.number > limits.rows) throw new UploadLimitExceeded('rows', limits);
        const values = row.values as ExcelJS.CellValue[];
        if (values.length - 1 > limits.cellsPerRow) throw new UploadLimitExceeded('cellsPerRow', limits);
        const cells = Array.from(values.slice(1), (c) => cellText(c ?? null));
        checkCells(cells, limits);
        if (blank(cells)) continue;
        yield { rowNumber: row.number, cells };
      }
    }
  } catch (err) {
    if (err instanceof MalformedRoster || err instanceof UploadLimitExceeded) throw err;
    throw new MalformedRoster('not a spreadsheet: the file is not a readable XLSX workbook');
  } finally {
    feed.destroy();
  }
  if (sheets === 0) throw new MalformedRoster('not a spreadsheet: the workbook has no sheet');
}

/**
 * A table file's non-blank rows as text cells, by its extension (.csv, or .xlsx: the first sheet),
 * read as a stream within `limits` (domain/upload-limits.ts) and refused (UploadLimitExceeded) as
 * soon as one is crossed; a file that is no spreadsheet is refused with MalformedRoster. Parsing
 * yields to the event loop every CSV_PIECE_BYTES or XML_PIECE_BYTES, so a hostile file slows only its own reader.
 */
export function tableRows(
  fileName: string,
  input: TableInput,
  limits: TableLimits,
): AsyncGenerator<TableRow> {
  const ext = extension(fileName);
  if (ext === 'csv') return csvRows(input, limits);
  if (ext === 'xlsx') return xlsxRows(input, limits);
  if (input instanceof Readable) input.destroy();
  throw new MalformedRoster('not a spreadsheet: the file name must end in .xlsx or .csv');
}
