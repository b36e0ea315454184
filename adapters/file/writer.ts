import { stringify } from 'csv-stringify/sync';
import ExcelJS from 'exceljs';
import type { FileCell, FileFormat, FileTemplate } from '../../domain/insurer-file.js';

/**
 * Writes an insurer file's table (domain/insurer-file.ts) as XLSX or CSV. Cells stay what the
 * template made them: text, or a number for a serial. `writtenAt` stamps the workbook so a
 * rewrite of the same cut-off describes the same moment.
 */
export async function writeInsurerFile(
  template: FileTemplate,
  table: readonly FileCell[][],
  format: FileFormat,
  writtenAt: Date,
): Promise<Buffer> {
  if (format === 'csv') return Buffer.from(stringify(table as FileCell[][], { record_delimiter: '\r\n' }));
  const book = new ExcelJS.Workbook();
  book.creator = 'group-health-admin';
  book.created = writtenAt;
  book.modified = writtenAt;
  const sheet = book.addWorksheet(template.sheet_name);
  sheet.addRows(table as FileCell[][]);
  sheet.getRow(1).font = { bold: true };
  sheet.columns.forEach((column, i) => {
    column.width = Math.min(40, Math.max(8, ...table.map((row) => String(row[i] ?? '').length + 2)));
  });
  return Buffer.from(await book.xlsx.writeBuffer());
}
