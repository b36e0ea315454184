/** A committed census (D16): RUNNING until every row has an outcome, then COMPLETED. */
export const CENSUS_BATCH_STATUSES = ['BATCH_STATUS_RUNNING', 'BATCH_STATUS_COMPLETED'] as const;
export type CensusBatchStatus = (typeof CENSUS_BATCH_STATUSES)[number];

/**
 * A row's outcome: APPLIED (its employee and endorsement written), FAILED (refused when applied,
 * nothing written), INVALID (its plan had errors at commit: never applied). Pending: none yet.
 */
export const CENSUS_ROW_OUTCOMES = ['APPLIED', 'FAILED', 'INVALID'] as const;
export type CensusRowOutcome = (typeof CENSUS_ROW_OUTCOMES)[number];

/** Rows one apply activity takes; the workflow runs a few such chunks at a time. */
export const CENSUS_CHUNK_ROWS = 50;
export const CENSUS_CHUNKS_AT_ONCE = 4;

/** The census's rows as chunks [from, to] of CENSUS_CHUNK_ROWS. */
export function censusChunks(rows: number, size = CENSUS_CHUNK_ROWS): { from: number; to: number }[] {
  const chunks: { from: number; to: number }[] = [];
  for (let from = 1; from <= rows; from += size) chunks.push({ from, to: Math.min(rows, from + size - 1) });
  return chunks;
}
