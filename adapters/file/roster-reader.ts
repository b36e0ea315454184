import type { Readable } from 'node:stream';
import { ROSTER_FILE_LIMITS, type TableLimits } from '../../domain/upload-limits.js';
import { tableRows, type TableInput, type TableRow } from './table-reader.js';

/** One row of a roster file: its number in the file (the header is row 1) and its cells as text. */
export type RosterTableRow = TableRow;

/**
 * A roster file's non-blank rows as text cells, streamed, by its extension (.csv or .xlsx: the
 * first sheet), within ROSTER_FILE_LIMITS unless the caller reads another kind of file with it.
 */
export function rosterTableRows(
  fileName: string,
  input: Readable | TableInput,
  limits: TableLimits = ROSTER_FILE_LIMITS,
): AsyncGenerator<RosterTableRow> {
  return tableRows(fileName, input, limits);
}
