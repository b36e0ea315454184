import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import ExcelJS from 'exceljs';
import { MalformedRoster } from '../../domain/roster-file.js';
import { cellText, extension } from './reader.js';

/** One row of a roster file: its number in the file (the header is row 1) and its cells as text. */
export interface RosterTableRow {
  rowNumber: number;
  cells: string[];
}

/** CSV streamed through csv-parse: one record at a time, whatever the file's size. */
async function* csvRows(input: Readable): AsyncGenerator<RosterTableRow> {
  const parser = input.pipe(
    parse({ bom: true, relax_column_count: true, skip_empty_lines: true, info: true }),
  );
  try {
    for await (const record of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      if (record.record.some((c) => c.includes('\u0000'))) {
        throw new MalformedRoster('not a spreadsheet: the CSV file holds binary data');
      }
      yield { rowNumber: record.info.lines, cells: record.record };
    }
  } catch (err) {
    if (err instanceof MalformedRoster) throw err;
    // The parser's code and line, never its message (it quotes the file's text).
    const e = err as { code?: unknown; lines?: unknown };
    const why = typeof e.code === 'string' ? e.code : 'unreadable';
    const line = typeof e.lines === 'number' ? ` at line ${e.lines}` : '';
    throw new MalformedRoster(`not a spreadsheet: the CSV file cannot be read (${why}${line})`);
  } finally {
    input.destroy();
  }
}

/**
 * XLSX streamed through exceljs's WorkbookReader: the first sheet, row by row (shared strings and
 * styles cached, the latter so date cells read as dates); later sheets are skipped unread.
 */
async function* xlsxRows(input: Readable): AsyncGenerator<RosterTableRow> {
  const book = new ExcelJS.stream.xlsx.WorkbookReader(input, {
    worksheets: 'emit',
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
    entries: 'ignore',
  });
  let sheets = 0;
  try {
    for await (const sheet of book) {
      if (sheets++ > 0) break;
      for await (const row of sheet) {
        const values = row.values as ExcelJS.CellValue[];
        yield {
          rowNumber: row.number,
          cells: Array.from(values.slice(1), (c) => cellText(c ?? null)),
        };
      }
    }
  } catch (err) {
    if (err instanceof MalformedRoster) throw err;
    throw new MalformedRoster('not a spreadsheet: the file is not a readable XLSX workbook');
  } finally {
    input.destroy();
  }
  if (sheets === 0) throw new MalformedRoster('not a spreadsheet: the workbook has no sheet');
}

/** A roster file's rows as text cells, streamed, by its extension (.csv or .xlsx: the first sheet). */
export function rosterTableRows(fileName: string, input: Readable): AsyncGenerator<RosterTableRow> {
  const ext = extension(fileName);
  if (ext === 'csv') return csvRows(input);
  if (ext === 'xlsx') return xlsxRows(input);
  input.destroy();
  throw new MalformedRoster('not a spreadsheet: the file name must end in .xlsx or .csv');
}
