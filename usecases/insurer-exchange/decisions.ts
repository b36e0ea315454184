import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { sendInsurerDecision } from '../../adapters/decisions.js';
import { recordDecisionOverride } from '../../data/audit.js';
import { endorsementsRoutedTo } from '../../data/insurer-exchange/principals.js';
import type { InsurerScope } from '../../data/insurer-exchange/scope.js';
import type { SystemScope } from '../../data/scope.js';
import { looksLikeId } from '../../domain/ids.js';
import {
  malformedDecision,
  manualDecisionRefusal,
  MAX_OVERRIDE_REASON,
  type DecisionAnswer,
  type InsurerDecision,
  type ManualOverride,
} from '../../domain/insurer-exchange/decisions.js';
import {
  endorsementStateQuery,
  endorsementWorkflowId,
  type EndorsementState,
} from '../../workflows/endorsement/contract.js';

/** One item of `POST /v1/insurer/decisions`, already shaped as the workflow takes it. */
export interface DecisionItem {
  endorsementId: string;
  decision: InsurerDecision;
}

export type ItemAnswer = { endorsement_id: string } & DecisionAnswer;

/** Decisions sent to workflows at once: 500 Updates finish in a few seconds without a burst. */
const CONCURRENCY = 16;

const NOT_FOUND = { result: 'refused', detail: 'not found' } as const;

/**
 * D14: an insurer's batch of decisions, answered item by item in request order. An id that is not
 * an endorsement routed to this insurer (another insurer's, unknown, malformed) is refused as "not
 * found", one answer for all three, so nothing about other insurers' endorsements shows. Each
 * routed item goes through the decision Update (the workflow's validator decides); the same
 * endorsement twice in one call is sent in request order, so the second answers duplicate or
 * refused. A routed item whose text breaks the text rules (domain/text.ts: a UHID `=1+1`, a
 * control or bidi character) is refused with the field and the rule, the rest of the call goes on.
 * Idempotent: a repeated call answers duplicate and changes nothing.
 */
export async function submitInsurerDecisions(
  deps: { temporal: Client },
  scope: InsurerScope,
  items: readonly DecisionItem[],
): Promise<ItemAnswer[]> {
  const wellFormed = items.map((i) => i.endorsementId).filter((id) => looksLikeId('endorsement', id));
  const routed = await endorsementsRoutedTo(scope, [...new Set(wellFormed)]);
  const previous = new Map<string, Promise<unknown>>();
  const answers: Promise<ItemAnswer>[] = [];
  const limit = pool(CONCURRENCY);
  for (const item of items) {
    const id = item.endorsementId;
    if (!routed.has(id)) {
      answers.push(Promise.resolve({ endorsement_id: id, ...NOT_FOUND }));
      continue;
    }
    // The workflow's validator refuses a malformed decision too; answering it here also covers an
    // endorsement already closed (answered from its final status, never validated) and saves the call.
    const malformed = malformedDecision(item.decision);
    if (malformed) {
      answers.push(Promise.resolve({ endorsement_id: id, result: 'refused', detail: malformed }));
      continue;
    }
    const after = previous.get(id) ?? Promise.resolve();
    const answer = after.then(() =>
      limit(() =>
        sendInsurerDecision(deps.temporal, id, { source: 'POST /v1/insurer/decisions', ...item.decision }),
      ),
    );
    previous.set(
      id,
      answer.catch(() => undefined),
    );
    answers.push(answer.then((a) => ({ endorsement_id: id, ...a })));
  }
  return Promise.all(answers);
}

/** Runs at most `size` tasks at a time, in the order they were handed in. */
function pool(size: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running >= size) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await task();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

/** Where the operator's decisions say they came from (the workflow's details). */
const OPERATOR = 'npm run insurer (operator)';

/**
 * D14: an operator's manual decision (`npm run insurer -- approve|reject`), only for what the
 * insurer received (domain rule `manualDecisionRefusal`): otherwise refused with the endorsement's
 * status, unless `override` gives the operator's reason, which is then recorded in the client's
 * audit trail (`forced_approve` / `forced_reject`). The decision itself goes through the same Update
 * as every insurer path, whose validator still decides (a cancel or another decision first wins).
 *
 * Concurrency: the state is read by query, then the Update is sent. Receipt only ever turns true,
 * so a check that passed stays true; a status that moved meanwhile is the validator's to refuse.
 * Idempotency: a repeat answers duplicate. The audit entry is written after the workflow accepted,
 * at most once; a forced repeat while the workflow still runs writes it if the first run could not.
 */
export async function recordOperatorDecision(
  deps: { temporal: Client; system: SystemScope },
  endorsementId: string,
  decision: InsurerDecision,
  override?: ManualOverride,
): Promise<DecisionAnswer> {
  const reason = override?.reason.trim();
  if (override && (!reason || reason.length > MAX_OVERRIDE_REASON)) {
    return { result: 'refused', detail: `--reason must be 1 to ${MAX_OVERRIDE_REASON} characters` };
  }
  const state = await currentState(deps.temporal, endorsementId);
  const refusal = state ? manualDecisionRefusal({ status: state.status, received: !!state.received }) : null;
  if (refusal && (!refusal.forcible || !reason)) {
    const how = refusal.forcible ? '; record it anyway only with --force --reason "…"' : '';
    return { result: 'refused', detail: `${refusal.detail}${how}` };
  }
  const forced = refusal !== null;
  const answer = await sendInsurerDecision(deps.temporal, endorsementId, {
    ...decision,
    source: forced ? `${OPERATOR}, forced: not received by the insurer` : OPERATOR,
  });
  if (forced && reason && answer.result !== 'refused') {
    const action = decision.decision === 'APPROVED' ? 'forced_approve' : 'forced_reject';
    await recordDecisionOverride(deps.system, { endorsementId, action, reason });
  }
  return answer;
}

/** The running workflow's state; null when there is none (closed or unknown: the Update answers). */
async function currentState(temporal: Client, endorsementId: string): Promise<EndorsementState | null> {
  const handle = temporal.workflow.getHandle(endorsementWorkflowId(endorsementId));
  try {
    const { status } = await handle.describe();
    if (status.name !== 'RUNNING') return null;
    return await handle.query(endorsementStateQuery);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return null;
    throw err;
  }
}
