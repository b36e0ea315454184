import type ExcelJS from 'exceljs';

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
