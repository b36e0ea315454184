import type { Client } from '@temporalio/client';
import { sendInsurerDecision } from '../adapters/decisions.js';
import { endorsementsRoutedTo } from '../data/insurer-principals.js';
import type { InsurerScope } from '../data/insurer-scope.js';
import { looksLikeId } from '../domain/ids.js';
import { malformedDecision, type DecisionAnswer, type InsurerDecision } from '../domain/insurer-decisions.js';

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
