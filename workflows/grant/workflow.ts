import {
  ChildWorkflowCancellationType,
  ParentClosePolicy,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  startChild,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Activities } from '../../activities/index.js';
import { databaseActivity, failureType } from '../activity-options.js';
import type { GrantStatus as Status } from '../../domain/enums.js';
import { endorsementStartOptions } from '../endorsement/contract.js';
import { endorsementWorkflow } from '../endorsement/workflow.js';
import { GrantStatus } from '../search-attributes.js';
import {
  GRANT_GONE,
  GRANT_STATE_CONFLICT,
  grantStateQuery,
  type GrantItem,
  type GrantState,
  type GrantWorkflowInput,
} from './contract.js';

const db = proxyActivities<Activities>(databaseActivity([GRANT_GONE, GRANT_STATE_CONFLICT]));

/** Polling an endorsement started outside this grant: from 1 s, doubling, at most hourly. */
const FIRST_POLL_MS = 1_000;
const MAX_POLL_MS = 3_600_000;

/**
 * One grant request (D9): resolve the target policies, create one ADDITION per policy (or record
 * why it was skipped or failed), run each endorsement as a child workflow, wait for all of them,
 * then write the grant's final status. Every status change is written by an activity and mirrored
 * into the GrantStatus search attribute.
 *
 * Children use parentClosePolicy ABANDON and cancellationType ABANDON: an endorsement may already
 * be with the insurer, so neither the end nor a cancel of the grant ever cancels or terminates
 * it; each endorsement keeps its own lifecycle (and its own cancel, D7).
 */
export async function grantWorkflow(input: GrantWorkflowInput): Promise<GrantState> {
  const id = input.grantId;
  const state: GrantState = { grantId: id, status: 'GRANT_STATUS_PENDING', items: [], discarded: false };
  setHandler(grantStateQuery, () => ({ ...state, items: state.items.map((i) => ({ ...i })) }));
  const setStatus = (status: Status) => {
    state.status = status;
    upsertSearchAttributes([{ key: GrantStatus, value: status }]);
    setCurrentDetails(grantDetails(state));
  };
  setCurrentDetails(grantDetails(state));

  let policyIds: string[];
  try {
    policyIds = await db.resolveGrantPolicies(id);
  } catch (err) {
    if (failureType(err) !== GRANT_GONE) throw err;
    state.discarded = true;
    return state;
  }

  const items: GrantItem[] = [];
  for (const policyId of policyIds) {
    const item = await db.createGrantEndorsement(id, policyId);
    items.push(item);
    state.items.push({
      policyId,
      outcome: item.outcome,
      endorsementId: item.endorsementId,
      detail: item.detail,
    });
  }
  const children = items.filter((i) => i.child !== null);
  if (children.length > 0) {
    await db.markGrantInProgress(id);
    setStatus('GRANT_STATUS_IN_PROGRESS');
  }
  await Promise.all(children.map((i) => runEndorsement(i)));

  setStatus(await db.completeGrant(id));
  return state;
}

/**
 * Runs one endorsement as a child and waits for it to close. The child's workflow id is the
 * endorsement's own (`endorsement-<id>`), so Temporal refuses a second start: when the endorsement's
 * workflow was already started elsewhere (a cancel through the API, or the endorsement reconciler
 * after this grant stalled past its grace period), the grant follows the endorsement's stored status.
 */
async function runEndorsement(item: GrantItem): Promise<void> {
  // The endorsement's own start options, less the task queue: a child runs on its parent's.
  const { workflowId, args, workflowIdReusePolicy, typedSearchAttributes, staticSummary, staticDetails } =
    endorsementStartOptions(item.child!, '');
  let child;
  try {
    child = await startChild(endorsementWorkflow, {
      workflowId,
      args,
      workflowIdReusePolicy,
      typedSearchAttributes,
      staticSummary,
      staticDetails,
      parentClosePolicy: ParentClosePolicy.ABANDON,
      cancellationType: ChildWorkflowCancellationType.ABANDON,
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    return followStoredStatus(item.endorsementId!);
  }
  // A child that failed or was terminated leaves its row as it was: completeGrant reads the row.
  await child.result().catch(() => undefined);
}

/** The Web UI's current details: the grant's status and each target policy's outcome (ids only). */
function grantDetails(state: GrantState): string {
  const items = state.items.map(
    (i) => `\`${i.policyId}\`: ${i.outcome}${i.endorsementId ? ` \`${i.endorsementId}\`` : ''}`,
  );
  const waiting =
    state.status === 'GRANT_STATUS_IN_PROGRESS' ? ["waiting for its endorsements' workflows to close"] : [];
  return [`**${state.status.replace('GRANT_STATUS_', '')}**`, ...waiting, ...items].join('\n\n');
}

async function followStoredStatus(endorsementId: string): Promise<void> {
  for (let wait = FIRST_POLL_MS; ; wait = Math.min(wait * 2, MAX_POLL_MS)) {
    if (!(await db.grantEndorsementStatus(endorsementId)).open) return;
    await sleep(wait);
  }
}
