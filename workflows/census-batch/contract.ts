import { BatchId, ClientId } from '../search-attributes.js';
import { idempotentStartOptions } from '../start-options.js';
import { censusBatchMetadata } from '../user-metadata.js';

/**
 * A committed census (D16) as a workflow: applies its rows in chunks, a few at a time, each row
 * once. Payloads carry ids, row numbers and counts only: the census (names, e-mails, dates of
 * birth) is staged in PostgreSQL and read there by the activities.
 */
export const CENSUS_BATCH_WORKFLOW = 'censusBatchWorkflow';
export const censusBatchWorkflowId = (batchId: string): string => `census-batch-${batchId}`;

export interface CensusBatchInput {
  batchId: string;
  clientId: string;
  /** The census's row count: rows are numbered 1..rows. */
  rows: number;
}

/** A chunk's tally (what its apply activity did now; rows already applied count nowhere). */
export interface ChunkResult {
  applied: number;
  failed: number;
}

export interface CensusBatchResult {
  batchId: string;
  applied: number;
  failed: number;
}

/** Idempotent start (workflows/start-options.ts): the workflow id is derived from the batch id. */
export const censusBatchStartOptions = (input: CensusBatchInput, taskQueue: string) =>
  idempotentStartOptions(censusBatchWorkflowId(input.batchId), taskQueue, input, censusBatchMetadata(input), [
    { key: BatchId, value: input.batchId },
    { key: ClientId, value: input.clientId },
  ]);
