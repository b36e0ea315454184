import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import type { ResponseTableRow } from '../../domain/insurer-response-file.js';

/** A response file that is not a readable spreadsheet: refused whole. */
export class NotASpreadsheetError extends Error {}

/** Larger than any response to a day's cut-off: refused before it is parsed. */
export const MAX_RESPONSE_FILE_BYTES = 20 * 1024 * 1024;

export const extension = (fileName: string): string =>
  /\.([A-Za-z0-9]+)$/.exec(fileName)?.[1]?.toLowerCase() ?? '';

/** A cell as the text a person sees in it: numbers as typed, dates as YYYY-MM-DD, formulas' results. */
export function cellText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (typeof value !== 'object') return String(value);
  if ('richText' in value) return value.richText.map((t) => t.text).join('');
  if ('text' in value) return String(value.text);
  if ('result' in value) return cellText(value.result ?? null);
  if ('error' in value) return '';
  return '';
}

async function readXlsx(content: Buffer): Promise<ResponseTableRow[]> {
  const book = new ExcelJS.Workbook();
  try {
    await book.xlsx.load(content as unknown as ArrayBuffer);
  } catch {
    throw new NotASpreadsheetError('not a spreadsheet: the file is not a readable XLSX workbook');
  }
  const sheet = book.worksheets[0];
  if (!sheet) throw new NotASpreadsheetError('not a spreadsheet: the workbook has no sheet');
  const rows: ResponseTableRow[] = [];
  sheet.eachRow({ includeEmpty: false }, (row, rowNumber) => {
    const cells = (row.values as ExcelJS.CellValue[]).slice(1);
    rows.push({ rowNumber, cells: Array.from(cells, (c) => cellText(c ?? null)) });
  });
  return rows;
}

function readCsv(content: Buffer): ResponseTableRow[] {
  if (content.includes(0))
    throw new NotASpreadsheetError('not a spreadsheet: the CSV file holds binary data');
  try {
    const records: string[][] = parse(content, {
      bom: true,
      relax_column_count: true,
      skip_empty_lines: false,
    });
    return records.map((cells, i) => ({ rowNumber: i + 1, cells }));
  } catch (err) {
    // The parser's code and line, never its message (it quotes the file's text).
    const e = err as { code?: unknown; lines?: unknown };
    const why = typeof e.code === 'string' ? e.code : 'unreadable';
    const line = typeof e.lines === 'number' ? ` at line ${e.lines}` : '';
    throw new NotASpreadsheetError(`not a spreadsheet: the CSV file cannot be read (${why}${line})`);
  }
}

/**
 * An insurer's response file as a table of text cells, by its extension (.xlsx: the first sheet;
 * .csv). Anything else, or a file that does not read as one, is refused whole.
 */
export async function readResponseTable(fileName: string, content: Buffer): Promise<ResponseTableRow[]> {
  if (content.length > MAX_RESPONSE_FILE_BYTES) {
    throw new NotASpreadsheetError(`the file is larger than ${MAX_RESPONSE_FILE_BYTES / 1024 / 1024} MB`);
  }
  const ext = extension(fileName);
  if (ext === 'xlsx') return readXlsx(content);
  if (ext === 'csv') return readCsv(content);
  throw new NotASpreadsheetError('not a spreadsheet: the file name must end in .xlsx or .csv');
}
