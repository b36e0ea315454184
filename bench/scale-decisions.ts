import type { Client } from '@temporalio/client';
import { createInsurerClient } from '../usecases/insurer-exchange/principals.js';
import { sendInsurerDecision } from '../adapters/decisions.js';
import { createTokenService } from '../api/auth/tokens.js';
import { systemClock } from '../domain/clock.js';
import { INSURER_SCOPES } from '../domain/scopes.js';
import { ENDORSEMENT_WORKFLOW, endorsementStartOptions } from '../workflows/endorsement/contract.js';
import { peerInput, pool, waitFor } from './endorsements.js';
import type { BenchStack } from './stack.js';

/** D14's most per call; two calls in flight, so up to 2 × 16 decision Updates at once in the API. */
const BATCH = 500;
const CALLS_IN_FLIGHT = 2;
const PEER_IN_FLIGHT = 2 * 16;
const SENT = 'ENDORSEMENT_STATUS_SENT_TO_INSURER';

export interface DecisionFigures {
  decisions: number;
  accepted: number;
  /** From the first call to the last answer (each answer means the workflow recorded it). */
  seconds: number;
  per_second: number;
  /** From the first call until every row is APPROVED in PostgreSQL (the approvals applied). */
  applied_seconds: number;
}

/** The bench insurer's credentials for POST /v1/insurer/decisions, made as `insurer-client:create` does. */
async function insurerToken(s: BenchStack): Promise<string> {
  const made = await createInsurerClient(s.orm.em.fork(), 'BENCH');
  return createTokenService({
    keys: s.config.JWT_SIGNING_KEYS!,
    issuer: s.config.JWT_ISSUER,
    audience: s.config.JWT_AUDIENCE,
    clock: systemClock,
  }).issue(made.client_id, INSURER_SCOPES, 1);
}

export async function countStatus(s: BenchStack, policyId: string, status: string): Promise<number> {
  const [row] = await s.orm.em.execute<{ n: string }[]>(
    'select count(*) as n from endorsements where policy_id = ? and status = ?',
    [policyId, status],
  );
  return Number(row!.n);
}

/** Every endorsement of the policy waiting for its insurer, approved through the decisions API. */
export async function decideThroughApi(s: BenchStack, policyId: string): Promise<DecisionFigures> {
  const token = await insurerToken(s);
  const rows = await s.orm.em.execute<{ id: string }[]>(
    'select id from endorsements where policy_id = ? and status = ? order by id',
    [policyId, SENT],
  );
  const batches: string[][] = [];
  for (let i = 0; i < rows.length; i += BATCH) batches.push(rows.slice(i, i + BATCH).map((r) => r.id));
  let accepted = 0;
  const started = performance.now();
  await pool(batches, CALLS_IN_FLIGHT, async (ids) => {
    const res = await fetch(`${s.apiUrl}/v1/insurer/decisions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        decisions: ids.map((id) => ({
          endorsement_id: id,
          decision: 'APPROVED',
          uhid: `UH-${id.slice(-8)}`,
        })),
      }),
    });
    if (!res.ok) throw new Error(`POST /v1/insurer/decisions answered ${res.status}: ${await res.text()}`);
    const { payload } = (await res.json()) as { payload: { results: { result: string }[] } };
    accepted += payload.results.filter((r) => r.result === 'accepted').length;
  });
  const seconds = (performance.now() - started) / 1000;
  await waitFor(
    async () => (await countStatus(s, policyId, 'ENDORSEMENT_STATUS_APPROVED')) >= rows.length,
    1_800_000,
  );
  const applied = (performance.now() - started) / 1000;
  return {
    decisions: rows.length,
    accepted,
    seconds,
    per_second: rows.length / seconds,
    applied_seconds: applied,
  };
}

/**
 * The peer: as many endorsement workflows on the no-op worker (activities that do nothing), left
 * waiting for a decision, then the same decision Update sent to each by the same sender the API
 * uses, with as many in flight as the API's two calls have: what Temporal alone costs.
 */
export async function noopUpdates(
  s: BenchStack,
  temporal: Client,
  n: number,
  policyId: string,
): Promise<DecisionFigures & { setup_seconds: number }> {
  const queue = `${s.taskQueue}-noop`;
  const inputs = Array.from({ length: n }, () => peerInput(s, policyId));
  const t0 = performance.now();
  await pool(inputs, 10, (i) =>
    temporal.workflow.start(ENDORSEMENT_WORKFLOW, endorsementStartOptions(i, queue)),
  );
  const waiting = `TaskQueue = '${queue}' AND EndorsementStatus = '${SENT}' AND ExecutionStatus = 'Running'`;
  await waitFor(async () => (await temporal.workflow.count(waiting)).count >= n, 1_800_000);
  // Past SENT_TO_INSURER the workflow submits (a no-op) before a decision is taken: a moment's grace.
  await new Promise((r) => setTimeout(r, 3_000));
  const setup = (performance.now() - t0) / 1000;
  let accepted = 0;
  const started = performance.now();
  await pool(inputs, PEER_IN_FLIGHT, async (i) => {
    const answer = await sendInsurerDecision(temporal, i.endorsementId, {
      source: 'bench',
      decision: 'APPROVED',
      uhid: `UH-${i.endorsementId.slice(-8)}`,
    });
    if (answer.result === 'accepted') accepted++;
  });
  const seconds = (performance.now() - started) / 1000;
  return {
    decisions: n,
    accepted,
    seconds,
    per_second: n / seconds,
    applied_seconds: seconds,
    setup_seconds: setup,
  };
}
