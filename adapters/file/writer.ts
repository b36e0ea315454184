import type { FileCell, FileFormat, FileTemplate } from '../../domain/insurer-exchange/file.js';
import { writeCsv, writeXlsx } from '../../infra/spreadsheet-files.js';

/**
 * Writes an insurer file's table (domain/insurer-exchange/file.ts) as XLSX or CSV. Cells stay what the
 * template made them: text, or a number for a serial; the one spreadsheet writer makes every text
 * cell safe to open (infra/spreadsheet-files.ts: no cell a spreadsheet would run as a formula).
 * `writtenAt` stamps the workbook so a rewrite of the same cut-off describes the same moment.
 */
export async function writeInsurerFile(
  template: FileTemplate,
  table: readonly FileCell[][],
  format: FileFormat,
  writtenAt: Date,
): Promise<Buffer> {
  if (format === 'csv') return writeCsv(table);
  return writeXlsx(table, { sheetName: template.sheet_name, writtenAt, widths: 'content' });
}
