import type { ResponseTableRow } from '../../domain/insurer-exchange/response-file.js';
import { MalformedRoster } from '../../domain/reconciliation/roster-file.js';
import { RESPONSE_FILE_LIMITS, UploadLimitExceeded } from '../../domain/upload-limits.js';
import { tableRows } from './table-reader.js';

export { cellText, extension } from './cell-text.js';

/** A response file that is not a readable spreadsheet, or one past its bounds: refused whole. */
export class NotASpreadsheetError extends Error {}

/** Larger than any response to a day's cut-off: refused before it is parsed. */
export const MAX_RESPONSE_FILE_BYTES = RESPONSE_FILE_LIMITS.bytes;

/**
 * An insurer's response file as a table of text cells, by its extension (.xlsx: the first sheet;
 * .csv), its blank rows left out and its row numbers the file's own. Read as a stream within
 * RESPONSE_FILE_LIMITS (refused as soon as one is crossed); anything else, or a file that does not
 * read as a spreadsheet, is refused whole.
 */
export async function readResponseTable(fileName: string, content: Buffer): Promise<ResponseTableRow[]> {
  if (content.length > RESPONSE_FILE_LIMITS.bytes) {
    throw new NotASpreadsheetError(new UploadLimitExceeded('bytes', RESPONSE_FILE_LIMITS).message);
  }
  const rows: ResponseTableRow[] = [];
  try {
    for await (const row of tableRows(fileName, content, RESPONSE_FILE_LIMITS)) rows.push(row);
  } catch (err) {
    if (err instanceof MalformedRoster || err instanceof UploadLimitExceeded)
      throw new NotASpreadsheetError(err.message);
    throw err;
  }
  return rows;
}
