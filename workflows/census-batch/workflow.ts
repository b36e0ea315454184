import { proxyActivities, setCurrentDetails } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import { CENSUS_CHUNKS_AT_ONCE, censusChunks } from '../../domain/census/batch.js';
import type { CensusBatchInput, CensusBatchResult } from './contract.js';

/** A chunk is up to 50 rows in one transaction, then their workflow starts: seconds, not minutes. */
const db = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

/**
 * Applies a committed census: its rows in chunks, CENSUS_CHUNKS_AT_ONCE chunks at a time (bounded
 * concurrency), then completes the batch (status and its webhook). Each row is applied once
 * whatever retries or crashes happen: its outcome commits with its writes, and an apply skips rows
 * that have one. A row that fails is recorded FAILED and never stops the others.
 */
export async function censusBatchWorkflow(input: CensusBatchInput): Promise<CensusBatchResult> {
  const chunks = censusChunks(input.rows);
  const result: CensusBatchResult = { batchId: input.batchId, applied: 0, failed: 0 };
  let next = 0;
  let done = 0;
  const details = () =>
    `**${done === chunks.length ? 'COMPLETING' : 'APPLYING'}** ${done} of ${chunks.length} chunks · ${result.applied} applied · ${result.failed} failed`;
  setCurrentDetails(details());
  const lane = async (): Promise<void> => {
    while (next < chunks.length) {
      const chunk = chunks[next++]!;
      const r = await db.applyCensusRows({ clientId: input.clientId, batchId: input.batchId, ...chunk });
      result.applied += r.applied;
      result.failed += r.failed;
      done += 1;
      setCurrentDetails(details());
    }
  };
  await Promise.all(Array.from({ length: CENSUS_CHUNKS_AT_ONCE }, lane));
  await db.completeCensusBatch({ clientId: input.clientId, batchId: input.batchId });
  setCurrentDetails(`**COMPLETED** ${result.applied} applied · ${result.failed} failed`);
  return result;
}
