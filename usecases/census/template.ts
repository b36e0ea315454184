import { CENSUS_COLUMNS } from '../../domain/census/rows.js';
import { writeCsv, writeXlsx } from '../../infra/spreadsheet-files.js';

/** The census template's header row: the columns' headers, in their order (domain/census/rows.ts). */
const HEADERS = CENSUS_COLUMNS.map((c) => c.header);

/** The CSV template: the header row only, written as every CSV of ours is (infra/spreadsheet-files.ts). */
export const censusTemplateCsv = (): string => writeCsv([HEADERS]).toString();

/** The XLSX template: one sheet whose first row is the header (bold), columns sized to it. */
export const censusTemplateXlsx = (): Promise<Buffer> =>
  writeXlsx([HEADERS], { sheetName: 'Census', widths: 'header' });
