import ExcelJS from 'exceljs';

/**
 * The one writer of every CSV and XLSX file the service produces: the insurers' cut-off files, the
 * acknowledgements of their response files, the census templates the API serves. Whoever opens
 * them (an insurer's clerk, an HR team) opens them in a spreadsheet, and some cells hold text that
 * came from outside (names, employee codes, an insurer's own references), so no cell may be one a
 * spreadsheet would run (OWASP, "CSV Injection"):
 * - a text cell starting with `=`, `+`, `-`, `@`, tab or carriage return is written with a single
 *   quote in front (`'=1+2`), in CSV and XLSX alike: shown as text, never evaluated;
 * - in CSV every text cell is enclosed in double quotes (inner quotes doubled), so a `;` or a tab in
 *   a value cannot start a new cell for a reader whose list separator is not the comma;
 * - in XLSX every cell is a plain value (a string or a number), never a formula;
 * - a number is ours (a serial, an amount we computed) and is written as a number: bare in CSV, a
 *   numeric cell in XLSX. A negative number stays a number (`-500` is not a formula); a text cell
 *   holding `-500` is quoted like any other text starting with `-`. A cell that should read as a
 *   number in the insurer's spreadsheet must therefore be handed over as a number.
 */

/** A cell of a file we write: text, or a finite number we produced. */
export type SheetCell = string | number;
export type SheetTable = readonly (readonly SheetCell[])[];

const FORMULA_LEAD = /^[=+\-@\t\r]/;

/** Text a spreadsheet would take as a formula, quoted as text; any other text unchanged. */
export const neutraliseText = (text: string): string => (FORMULA_LEAD.test(text) ? `'${text}` : text);

/** A cell as written: text neutralised; a number kept, or refused when it is not finite. */
function safeCell(cell: SheetCell): SheetCell {
  if (typeof cell === 'number') {
    // NaN or Infinity would be written as text (`-Infinity`): a caller's fault, never a file's content.
    if (!Number.isFinite(cell)) throw new TypeError('a spreadsheet cell must be a finite number or text');
    return cell;
  }
  return neutraliseText(String(cell));
}

const safeTable = (table: SheetTable): SheetCell[][] => table.map((row) => row.map(safeCell));

/** One CSV field (RFC 4180): a number bare, text always in double quotes with inner quotes doubled. */
const csvField = (cell: SheetCell): string =>
  typeof cell === 'number' ? String(cell) : `"${cell.replace(/"/g, '""')}"`;

/**
 * The table as CSV: CRLF line ends, every text cell quoted, numbers bare. Written here rather than by
 * csv-stringify: with every text cell quoted there is nothing left to decide, and this is several
 * times faster on a cut-off's rows.
 */
export function writeCsv(table: SheetTable): Buffer {
  return Buffer.from(
    safeTable(table)
      .map((row) => `${row.map(csvField).join(',')}\r\n`)
      .join(''),
  );
}

export interface XlsxLayout {
  sheetName: string;
  /** Stamps the workbook, so a rewrite of the same content describes the same moment. */
  writtenAt?: Date;
  /** Each column's width: its longest cell (within bounds) or its header's. */
  widths: 'content' | 'header';
}

/** The table as an XLSX workbook of one sheet, the first row its bold header. */
export async function writeXlsx(table: SheetTable, layout: XlsxLayout): Promise<Buffer> {
  const rows = safeTable(table);
  const book = new ExcelJS.Workbook();
  book.creator = 'group-health-admin';
  if (layout.writtenAt) {
    book.created = layout.writtenAt;
    book.modified = layout.writtenAt;
  }
  const sheet = book.addWorksheet(layout.sheetName);
  // Plain strings and numbers only: exceljs writes a formula only for a `{ formula }` value.
  sheet.addRows(rows);
  sheet.getRow(1).font = { bold: true };
  sheet.columns.forEach((column, i) => {
    const width = (row: SheetCell[] | undefined) => String(row?.[i] ?? '').length + 2;
    column.width =
      layout.widths === 'header'
        ? Math.max(12, width(rows[0]))
        : Math.min(40, Math.max(8, ...rows.map(width)));
  });
  return Buffer.from(await book.xlsx.writeBuffer());
}
