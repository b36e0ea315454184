import {
  TypedSearchAttributes,
  type SearchAttributePair,
  type WorkflowIdConflictPolicy,
  type WorkflowIdReusePolicy,
} from '@temporalio/common';
import type { UserMetadata } from './user-metadata.js';

/**
 * Start options that make a start idempotent, for every workflow started once per business id
 * (endorsement, grant, census batch): the workflow id is derived from that id, a start while one
 * runs returns the running one (USE_EXISTING), and a start after it closed is refused
 * (REJECT_DUPLICATE) rather than doing the work twice. The Web UI's summary and details and the
 * search attributes come with them, so every start path carries them.
 */
export function idempotentStartOptions<I>(
  workflowId: string,
  taskQueue: string,
  input: I,
  metadata: UserMetadata,
  searchAttributes: SearchAttributePair[],
) {
  return {
    workflowId,
    taskQueue,
    args: [input] as [I],
    workflowIdConflictPolicy: 'USE_EXISTING' as WorkflowIdConflictPolicy,
    workflowIdReusePolicy: 'REJECT_DUPLICATE' as WorkflowIdReusePolicy,
    ...metadata,
    typedSearchAttributes: new TypedSearchAttributes(searchAttributes),
  };
}
