import { stringify } from 'csv-stringify/sync';

/**
 * An acknowledgement file's CSV (D14). The reference column echoes the insurer's own text, so a
 * cell a spreadsheet would run as a formula is quoted as text.
 */
export function acknowledgementCsv(table: readonly string[][]): Buffer {
  const safe = table.map((row) => row.map((cell) => (/^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell)));
  return Buffer.from(stringify(safe, { record_delimiter: '\r\n' }));
}
