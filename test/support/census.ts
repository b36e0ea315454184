import ExcelJS from 'exceljs';
import { CENSUS_COLUMNS, type CensusField } from '../../domain/census.js';

/** A census row by field name (the templates' columns). */
export type CensusRowIn = Partial<Record<CensusField, string>>;

const HEADERS = CENSUS_COLUMNS.map((c) => c.header);
const cell = (v: string | undefined) =>
  v === undefined ? '' : /[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;

/** The rows as a CSV census with the template's header. */
export function censusCsv(rows: readonly CensusRowIn[]): Buffer {
  const lines = [
    HEADERS.join(','),
    ...rows.map((r) => CENSUS_COLUMNS.map((c) => cell(r[c.field])).join(',')),
  ];
  return Buffer.from(`${lines.join('\r\n')}\r\n`);
}

/** The rows as an XLSX census (first sheet, the template's header); dates as real date cells. */
export async function censusXlsx(rows: readonly CensusRowIn[]): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Census');
  sheet.addRow(HEADERS);
  for (const r of rows) {
    sheet.addRow(
      CENSUS_COLUMNS.map((c) => {
        const v = r[c.field];
        const date = v !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(v) ? new Date(`${v}T00:00:00Z`) : null;
        // A real date is a date cell, as HR's spreadsheet has it; anything else stays text.
        return date && !Number.isNaN(date.getTime()) && date.toISOString().startsWith(v!)
          ? date
          : (v ?? null);
      }),
    );
  }
  return Buffer.from(await book.xlsx.writeBuffer());
}

export const CSV = 'text/csv';
export const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
