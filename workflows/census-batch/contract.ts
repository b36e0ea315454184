import {
  TypedSearchAttributes,
  type WorkflowIdConflictPolicy,
  type WorkflowIdReusePolicy,
} from '@temporalio/common';
import { BatchId, ClientId } from '../search-attributes.js';
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

/** Idempotent start, as for grants: the workflow id is derived from the batch id. */
export function censusBatchStartOptions(input: CensusBatchInput, taskQueue: string) {
  return {
    workflowId: censusBatchWorkflowId(input.batchId),
    taskQueue,
    args: [input] as [CensusBatchInput],
    workflowIdConflictPolicy: 'USE_EXISTING' as WorkflowIdConflictPolicy,
    workflowIdReusePolicy: 'REJECT_DUPLICATE' as WorkflowIdReusePolicy,
    ...censusBatchMetadata(input),
    typedSearchAttributes: new TypedSearchAttributes([
      { key: BatchId, value: input.batchId },
      { key: ClientId, value: input.clientId },
    ]),
  };
}
