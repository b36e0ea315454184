import ExcelJS from 'exceljs';
import { CENSUS_COLUMNS } from '../domain/census.js';

/** The census template's header row: the columns' headers, in their order (domain/census.ts). */
const HEADERS = CENSUS_COLUMNS.map((c) => c.header);

/** The CSV template: the header row only. */
export const censusTemplateCsv = (): string => `${HEADERS.join(',')}\r\n`;

/** The XLSX template: one sheet whose first row is the header (bold), columns sized to it. */
export async function censusTemplateXlsx(): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Census');
  sheet.addRow(HEADERS).font = { bold: true };
  sheet.columns.forEach((col, i) => {
    col.width = Math.max(12, HEADERS[i]!.length + 2);
  });
  return Buffer.from(await book.xlsx.writeBuffer());
}
