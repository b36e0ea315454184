import { execFile } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { Worker } from '@temporalio/worker';
import type { AppDeps } from '../../api/deps.js';
import { sendInsurerDecision } from '../../adapters/decisions.js';
import type { InsurerAdapter, InsurerSubmission } from '../../adapters/types.js';
import type { InsurerAdapterName } from '../../domain/enums.js';
import {
  endorsementStateQuery,
  endorsementWorkflowId,
  type DecisionAnswer,
  type EndorsementState,
  type InsurerDecision,
} from '../../workflows/endorsement/contract.js';
import { isoSql } from '../../data/webhooks/outbox.js';
import { payloadDataConverter } from '../../infra/temporal-client.js';
import { WORKFLOWS_PATH } from '../../worker/create-worker.js';
import { InsurerId, SlaDueAt, SubmittedAt } from '../../workflows/search-attributes.js';
import { testTemporal } from '../support/cluster.js';
import {
  makeClient,
  makeEmployee,
  makePolicy,
  makeReferenceData,
  sql,
  type PolicyOverrides,
  type TestClient,
} from '../support/factories.js';
import { client as http, type HttpClient } from '../support/http.js';
import { stack, TEST_KEYS } from '../support/stack.js';

/** Shared helpers of the endorsement tests: a client with a policy, polling, insurer decisions. */

export interface World {
  client: TestClient;
  token: string;
  api: HttpClient;
  policy: { id: string; policyNumber: string };
  employee: { id: string; name: string; employeeCode: string };
}

let api: { url: string } | null = null;

/** One API per test run for these files (closed with the stack). */
export async function endorsementApi(overrides: Partial<AppDeps> = {}): Promise<HttpClient> {
  if (Object.keys(overrides).length > 0) return http((await stack().startApi(overrides)).url);
  api ??= await stack().startApi();
  return http(api.url);
}

export async function makeWorld(
  o: {
    policy?: PolicyOverrides;
    adapter?: InsurerAdapterName;
    adapterSettings?: Record<string, unknown>;
    employee?: Parameters<typeof makeEmployee>[1];
    api?: HttpClient;
  } = {},
): Promise<World> {
  const client = await makeClient();
  const reference = await makeReferenceData(client.clientId, {
    adapter: o.adapter ?? 'manual',
    ...(o.adapterSettings ? { adapterSettings: o.adapterSettings } : {}),
  });
  const policy = await makePolicy(client.clientId, { reference, ...o.policy });
  const employee = await makeEmployee(client.clientId, o.employee);
  return { client, token: client.token(), api: o.api ?? (await endorsementApi()), policy, employee };
}

export interface CreateBody {
  employee_id: string;
  type: string;
  policy_id?: string;
  coverage_start_date?: string;
  coverage_end_date?: string;
  sum_insured?: number | string;
}

/** POST /v1/policy/endorsements; returns the endorsement id (asserting 200). */
export async function createEndorsement(world: World, body: Partial<CreateBody> = {}): Promise<string> {
  const res = await world.api.post('/v1/policy/endorsements', {
    token: world.token,
    body: {
      employee_id: world.employee.id,
      policy_id: world.policy.id,
      type: 'ADDITION',
      coverage_start_date: '2026-04-01',
      coverage_end_date: '2027-03-31',
      ...body,
    },
  });
  if (res.status !== 200) throw new Error(`create failed: ${res.status} ${res.text}`);
  return res.body.payload.endorsement_id as string;
}

/**
 * How long a test waits for the engine to reach a state. The dev server keeps its state in memory; the
 * cluster (TEST_TEMPORAL=cluster) commits every step to PostgreSQL and answers through two nodes, so on a
 * busy machine a few hundred workflows take longer to get somewhere: the same checks, a longer bound.
 */
export const WAIT_MS = testTemporal() === 'cluster' ? 90_000 : 20_000;

/** Polls until `read` satisfies `done` (short interval, bounded). */
export async function waitFor<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
  timeoutMs = WAIT_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(value)}`);
    await sleep(50);
  }
}

export async function endorsementRow(id: string): Promise<Record<string, any>> {
  const [row] = await sql(
    `select status, rejection_reason, premium_impact::text as premium_impact, sum_insured::text as sum_insured,
            insurer_member_id, uhid, workflow_started_at, decided_at
       from endorsements where id = ?`,
    [id],
  );
  return row;
}

export const waitForStatus = (id: string, status: string) =>
  waitFor(
    () => endorsementRow(id),
    (row) => row?.status === status,
    `${id} to be ${status}`,
  );

export const workflowHandle = (id: string) => stack().temporal.workflow.getHandle(endorsementWorkflowId(id));

/**
 * The database steps an endorsement's history shows, as the Web UI's timeline does: the activities
 * scheduled (an activity task each) and the local activities recorded (a marker each, which names
 * the step: the core writes it outside the codec), with the patches the run recorded (their ids).
 */
export async function historySteps(
  id: string,
): Promise<{ activities: string[]; local: string[]; patches: string[] }> {
  const history = await workflowHandle(id).fetchHistory();
  const activities: string[] = [];
  const local: string[] = [];
  const patches: string[] = [];
  const json = <T>(data: Uint8Array | null | undefined) =>
    JSON.parse(Buffer.from(data ?? []).toString('utf8')) as T;
  for (const e of history.events ?? []) {
    const scheduled = e.activityTaskScheduledEventAttributes?.activityType?.name;
    if (scheduled) activities.push(scheduled);
    const marker = e.markerRecordedEventAttributes;
    if (marker?.markerName === 'core_patch') {
      for (const p of Object.values(marker.details ?? {}).flatMap((d) => d.payloads ?? []))
        patches.push(json<{ id: string }>(p.data).id);
    }
    if (marker?.markerName !== 'core_local_activity') continue;
    local.push(json<{ activity_type: string }>(marker.details?.data?.payloads?.[0]?.data).activity_type);
  }
  return { activities, local, patches };
}

/**
 * The insurer SLA watch's search attributes once it has started: who has the endorsement, since when
 * (ISO 8601), and how many days later the SLA breaches.
 */
export async function slaWatch(id: string) {
  const set = await waitFor(
    async () => (await workflowHandle(id).describe()).typedSearchAttributes,
    (a) => a.get(SlaDueAt) !== undefined,
    'the SLA watch to start',
  );
  const submittedAt = set.get(SubmittedAt)!;
  return {
    insurerId: set.get(InsurerId),
    submittedAt: submittedAt.toISOString(),
    dueInDays: (set.get(SlaDueAt)!.getTime() - submittedAt.getTime()) / 86_400_000,
  };
}

/** Who has the endorsement by its policy, and when its row went SENT_TO_INSURER (to the millisecond). */
export async function sentToInsurer(id: string): Promise<{ insurer_id: string; sent_at: string }> {
  const [row] = await sql(
    `select p.insurer_id, ${isoSql('e.sent_to_insurer_at')} as sent_at
       from endorsements e join policies p on p.id = e.policy_id where e.id = ?`,
    [id],
  );
  return row as { insurer_id: string; sent_at: string };
}

/** Determinism: a run's whole history replays against the workflow code (decoded with the run's key). */
export async function replaysWhole(workflowId: string): Promise<void> {
  const history = await stack().temporal.workflow.getHandle(workflowId).fetchHistory();
  await Worker.runReplayHistory(
    { workflowsPath: WORKFLOWS_PATH, dataConverter: payloadDataConverter(stack().config) },
    history,
    workflowId,
  );
}

export const workflowState = (id: string): Promise<EndorsementState> =>
  workflowHandle(id).query(endorsementStateQuery);

/**
 * The insurer's decision, sent exactly as the insurer command (and an adapter) sends it, once the
 * insurer has the endorsement: an insurer cannot answer before submission, so a decision refused
 * as "not yet submitted" is sent again until the endorsement is SENT_TO_INSURER (bounded).
 */
export async function decide(id: string, decision: InsurerDecision): Promise<DecisionAnswer> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const answer = await sendInsurerDecision(stack().temporal, id, decision);
    const early = answer.result === 'refused' && answer.detail === 'not yet submitted to the insurer';
    if (!early || Date.now() > deadline) return answer;
    await sleep(50);
  }
}

export async function cdBalance(policyId: string): Promise<string> {
  const [row] = await sql('select cd_balance::text as cd_balance from policies where id = ?', [policyId]);
  return row.cd_balance;
}

/** The policy's endorsement postings (debits and credits; holds and the opening entry left out). */
export async function ledger(
  policyId: string,
): Promise<{ endorsement_id: string; amount: string; balance_after: string }[]> {
  return sql(
    `select endorsement_id, amount::text as amount, balance_after::text as balance_after
       from cd_ledger_entries where policy_id = ? and kind in ('debit', 'credit') order by seq`,
    [policyId],
  );
}

export async function memberRows(policyId: string): Promise<Record<string, any>[]> {
  return sql(
    `select employee_id, dependent_id, endorsement_id, status, employee_name, member_rank, insurer_member_id, uhid,
            coverage_start_date::text as coverage_start_date, coverage_end_date::text as coverage_end_date,
            sum_insured::text as sum_insured, remaining_sum_insured::text as remaining_sum_insured,
            premium_amount::text as premium_amount
       from policy_members where policy_id = ? order by member_rank, dependent_id nulls first`,
    [policyId],
  );
}

/** A test double for an insurer adapter: records every call, decides nothing (like `manual`). */
export function recordingAdapter(): InsurerAdapter & {
  submitted: string[];
  withdrawn: string[];
  /** The relationships of the people each submission listed, by endorsement id. */
  people: Map<string, string[]>;
} {
  const submitted: string[] = [];
  const withdrawn: string[] = [];
  const people = new Map<string, string[]>();
  return {
    submitted,
    withdrawn,
    people,
    async submit(s: InsurerSubmission) {
      submitted.push(s.endorsementId);
      people.set(
        s.endorsementId,
        s.members.map((m) => m.relationship),
      );
    },
    async withdraw(s: InsurerSubmission) {
      withdrawn.push(s.endorsementId);
    },
  };
}

/** Registers the double as the `manual` adapter for the current test; returns it and the undo. */
export function recordManualAdapter() {
  const adapter = recordingAdapter();
  const restore = stack().adapters.register('manual', adapter);
  return { adapter, restore };
}
const ROOT = path.resolve(import.meta.dirname, '..', '..');

/** Runs the insurer command as an operator would, against this run's Temporal and database. */
export async function insurerCommand(
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    ...process.env,
    ...stack().databaseEnv,
    TEMPORAL_ADDRESS: stack().temporalAddress,
    TEMPORAL_NAMESPACE: stack().config.TEMPORAL_NAMESPACE,
    PAYLOAD_ENCRYPTION_KEYS: TEST_KEYS.PAYLOAD_ENCRYPTION_KEYS,
    LOG_LEVEL: 'silent',
  };
  try {
    const { stdout, stderr } = await promisify(execFile)(
      'node',
      ['--import', 'tsx', 'scripts/insurer.ts', ...args],
      {
        cwd: ROOT,
        env,
      },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** An endorsement's audit actions, oldest first. */
export const auditActions = async (id: string): Promise<string[]> =>
  (await sql('select action from audit_events where entity_id = ? order by created_at, id', [id])).map(
    (r) => r.action as string,
  );
