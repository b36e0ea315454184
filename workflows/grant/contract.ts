import { defineQuery } from '@temporalio/workflow';
import type { GrantItemOutcome, GrantStatus as Status } from '../../domain/enums.js';
import type { EndorsementWorkflowInput } from '../endorsement/contract.js';
import { ClientId, EmployeeId, GrantStatus } from '../search-attributes.js';
import { idempotentStartOptions } from '../start-options.js';
import { grantMetadata } from '../user-metadata.js';

/**
 * The grant workflow's contract (D9): one workflow per grant request, enrolling the employee into
 * each target policy through one child endorsement workflow. Payloads carry ids only; dates and
 * policies are read from PostgreSQL by activities.
 */
export const GRANT_WORKFLOW = 'grantWorkflow';
export const grantWorkflowId = (grantId: string): string => `grant-${grantId}`;

export interface GrantWorkflowInput {
  grantId: string;
  clientId: string;
  employeeId: string;
}

/** One target policy of a grant, as recorded in grant_items. */
export interface GrantItem {
  policyId: string;
  outcome: GrantItemOutcome;
  /** Set when outcome is ENDORSEMENT. */
  endorsementId: string | null;
  /** Why a policy was SKIPPED or FAILED. */
  detail: string | null;
  /** The child endorsement workflow's input (outcome ENDORSEMENT only). */
  child: EndorsementWorkflowInput | null;
}

/** What the workflow reports through its query and as its result. */
export interface GrantState {
  grantId: string;
  status: Status;
  items: Omit<GrantItem, 'child'>[];
  /** The grant row no longer exists (its create was rolled back); the workflow did nothing. */
  discarded: boolean;
}
export const grantStateQuery = defineQuery<GrantState>('state');

/** Failure types: outcomes that retrying cannot change. */
export const GRANT_GONE = 'GrantNotFound';
export const GRANT_STATE_CONFLICT = 'GrantStateConflict';

/** Idempotent start (workflows/start-options.ts): the workflow id is derived from the grant id. */
export const grantStartOptions = (input: GrantWorkflowInput, taskQueue: string) =>
  idempotentStartOptions(grantWorkflowId(input.grantId), taskQueue, input, grantMetadata(input), [
    { key: GrantStatus, value: 'GRANT_STATUS_PENDING' },
    { key: ClientId, value: input.clientId },
    { key: EmployeeId, value: input.employeeId },
  ]);
