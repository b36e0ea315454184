import { writeCsv } from '../../infra/spreadsheet-files.js';

/**
 * An acknowledgement file's CSV (D14). The reference column echoes the insurer's own text; the one
 * spreadsheet writer quotes any cell a spreadsheet would run as a formula (infra/spreadsheet-files.ts).
 */
export const acknowledgementCsv = (table: readonly string[][]): Buffer => writeCsv(table);
