import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client as TemporalClient } from '@temporalio/client';
import type { Orm } from '../../../db/orm.js';
import { newId } from '../../../domain/ids.js';
import { endorsementWorkflowId, type EndorsementState } from '../../../workflows/endorsement/contract.js';
import { EndorsementStatus } from '../../../workflows/search-attributes.js';
import { makeClient, makePolicy, makeReferenceData, type TestClient } from '../../support/factories.js';
import type { HttpClient, HttpResult } from '../../support/http.js';
import { stack } from '../../support/stack.js';

/** A whole endorsement run for fault tests: many employees, the posts, the wait and the checks. */

export const FINAL_STATUSES = [
  'ENDORSEMENT_STATUS_APPROVED',
  'ENDORSEMENT_STATUS_REJECTED',
  'ENDORSEMENT_STATUS_CANCELLED',
];

export interface RunWorld {
  client: TestClient;
  token: string;
  policyId: string;
  employeeIds: string[];
  /** The database the run lives in (the shared test database unless a test brings its own). */
  orm: Orm;
}

const sqlOn =
  (orm: Orm) =>
  (query: string, params: unknown[] = []) =>
    orm.em.getConnection().execute<any[]>(query, params);

/**
 * One client, one ACTIVE policy on the simulated insurer with a CD balance that covers every
 * addition (unless the caller says how much), and `count` ACTIVE employees written set-based (thousands in well under a second).
 */
export async function seedRun(
  count: number,
  orm: Orm = stack().orm,
  cdBalance = '100000000.00',
): Promise<RunWorld> {
  const client = await makeClient();
  const reference = await makeReferenceData(client.clientId, { adapter: 'simulated' });
  const policy = await makePolicy(client.clientId, { reference, cdBalance });
  const employeeIds = await seedEmployees(orm, client.clientId, count);
  return { client, token: client.token(), policyId: policy.id, employeeIds, orm };
}

/** Employees named after a run tag (no personal data of real people). */
export async function seedEmployees(orm: Orm, clientId: string, count: number): Promise<string[]> {
  const tag = randomBytes(4).toString('hex');
  const sql = sqlOn(orm);
  await sql(
    `insert into users (id, client_id, email_key)
       select 'usr_' || ? || g, ?, 'run.' || ? || '.' || g || '@example.com' from generate_series(1, ?) g`,
    [tag, clientId, tag, count],
  );
  await sql(
    `insert into employees (id, client_id, user_id, employee_code, name, email, phone_number, date_of_birth, gender, status)
       select 'emp_' || ? || g, ?, 'usr_' || ? || g, 'R-' || ? || '-' || g, 'Run Employee ' || g,
              'run.' || ? || '.' || g || '@example.com', '+919800000000', date '1985-01-01', 'FEMALE', 'ACTIVE'
         from generate_series(1, ?) g`,
    [tag, clientId, tag, tag, tag, count],
  );
  return Array.from({ length: count }, (_, i) => `emp_${tag}${i + 1}`);
}

export const additionBody = (world: RunWorld, employeeId: string) => ({
  employee_id: employeeId,
  policy_id: world.policyId,
  type: 'ADDITION',
  coverage_start_date: '2026-04-01',
  coverage_end_date: '2027-03-31',
});

export interface PostOutcome {
  employeeId: string;
  key: string;
  first: HttpResult;
  /** The answer that counted (after retries of 503s with the same Idempotency-Key). */
  final: HttpResult;
  attempts: number;
}

/**
 * POSTs one ADDITION per employee with an Idempotency-Key, `concurrency` at a time, at most
 * `perSecond` starts per second. A 503 (or a refused connection) is retried with the same key,
 * as a client would, until `retryUntil` (epoch ms); 409 Request In Progress likewise.
 */
export async function postAdditions(
  api: () => HttpClient,
  world: RunWorld,
  employeeIds: string[],
  o: { concurrency: number; perSecond?: number; retryUntil?: number },
): Promise<PostOutcome[]> {
  const outcomes: PostOutcome[] = [];
  let next = 0;
  const started = Date.now();
  const worker = async () => {
    while (next < employeeIds.length) {
      const index = next++;
      if (o.perSecond) {
        const due = started + (index * 1000) / o.perSecond;
        if (due > Date.now()) await sleep(due - Date.now());
      }
      outcomes.push(await postWithRetry(api, world, employeeIds[index]!, o.retryUntil ?? 0));
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, worker));
  return outcomes;
}

const retryable = (r: HttpResult) =>
  r.status === 503 || r.status === 599 || (r.status === 409 && r.body?.title === 'Request In Progress');

async function postWithRetry(
  api: () => HttpClient,
  world: RunWorld,
  employeeId: string,
  retryUntil: number,
): Promise<PostOutcome> {
  const key = `run-${employeeId}`;
  const send = () =>
    api()
      .post('/v1/policy/endorsements', {
        token: world.token,
        body: additionBody(world, employeeId),
        headers: { 'Idempotency-Key': key },
      })
      .catch((err: unknown): HttpResult => ({
        status: 599,
        body: null,
        headers: new Headers(),
        text: String(err),
      }));
  const first = await send();
  let final = first;
  let attempts = 1;
  while (retryable(final) && Date.now() < retryUntil) {
    await sleep(500);
    final = await send();
    attempts++;
  }
  return { employeeId, key, first, final, attempts };
}

export const acceptedIds = (outcomes: PostOutcome[]): string[] =>
  outcomes.filter((o) => o.final.status === 200).map((o) => o.final.body.payload.endorsement_id as string);

/** How many endorsements of the run are not final yet. */
export async function openCount(world: RunWorld): Promise<number> {
  const [row] = await sqlOn(world.orm)(
    `select count(*)::int as open from endorsements where client_id = ? and status not in (?)`,
    [world.client.clientId, FINAL_STATUSES],
  );
  return row.open as number;
}

/** Waits (bounded) until every endorsement of the client is in a final status; returns the open ones left. */
export async function waitAllFinal(world: RunWorld, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await openCount(world);
    if (open === 0 || Date.now() > deadline) return open;
    await sleep(500);
  }
}

export interface RunFigures {
  endorsements: number;
  byStatus: Record<string, number>;
  withoutWorkflowMark: number;
  duplicateMemberRows: number;
  duplicateActivePersons: number;
  ledgerEntries: number;
  ledgerMismatches: number;
  balanceDrift: string;
}

/** What the database says about the run: statuses, duplicates, ledger entries against approvals. */
export async function runFigures(world: RunWorld): Promise<RunFigures> {
  const sql = sqlOn(world.orm);
  const c = world.client.clientId;
  const statuses = await sql(
    'select status, count(*)::int as n from endorsements where client_id = ? group by status',
    [c],
  );
  const [unstarted] = await sql(
    'select count(*)::int as n from endorsements where client_id = ? and workflow_started_at is null',
    [c],
  );
  const [dupRows] = await sql(
    `select count(*)::int as n from (select endorsement_id, dependent_id from policy_members
        where client_id = ? and endorsement_id is not null
        group by endorsement_id, dependent_id having count(*) > 1) d`,
    [c],
  );
  const [dupActive] = await sql(
    `select count(*)::int as n from (select policy_id, employee_id, dependent_id from policy_members
        where client_id = ? and status = 'active' group by 1, 2, 3 having count(*) > 1) d`,
    [c],
  );
  // The CD account's postings: one debit per approval, for its premium (its hold and release are
  // not postings); the opening balance is the ledger's first entry, so the ledger sums to the balance.
  const [ledger] = await sql(
    `select count(*)::int as entries,
            count(*) filter (where e.status <> 'ENDORSEMENT_STATUS_APPROVED' or l.amount <> -e.premium_impact)::int as mismatches
       from cd_ledger_entries l join endorsements e on e.id = l.endorsement_id
      where l.client_id = ? and l.kind = 'debit'`,
    [c],
  );
  const [drift] = await sql(
    `select (p.cd_balance - coalesce((select sum(amount) from cd_ledger_entries l where l.policy_id = p.id), 0))::text as drift
       from policies p where p.id = ?`,
    [world.policyId],
  );
  const byStatus = Object.fromEntries(statuses.map((r) => [r.status, r.n]));
  return {
    endorsements: statuses.reduce((n, r) => n + r.n, 0),
    byStatus,
    withoutWorkflowMark: unstarted.n,
    duplicateMemberRows: dupRows.n,
    duplicateActivePersons: dupActive.n,
    ledgerEntries: ledger.entries,
    ledgerMismatches: ledger.mismatches,
    balanceDrift: drift.drift,
  };
}

export interface Disagreement {
  id: string;
  api: string | undefined;
  workflow: string;
  searchAttribute: string | undefined;
}

/**
 * For every endorsement of the run: the API's GET, the workflow's result and its EndorsementStatus
 * search attribute must name the same final status, and the workflow must complete (within 60 s of
 * the check).
 */
export async function compareWithTemporal(
  api: HttpClient,
  world: RunWorld,
  temporal: TemporalClient = stack().temporal,
): Promise<Disagreement[]> {
  const rows = await sqlOn(world.orm)('select id from endorsements where client_id = ? order by id', [
    world.client.clientId,
  ]);
  const ids = rows.map((r) => r.id as string);
  const disagreements: Disagreement[] = [];
  let next = 0;
  const check = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      const handle = temporal.workflow.getHandle(endorsementWorkflowId(id));
      // The row turns final in the activity; the workflow completes right after (bounded wait).
      const result = (handle.result() as Promise<EndorsementState>).catch(() => null);
      const state = await within(result, 60_000);
      const [res, described] = await Promise.all([
        api.get(`/v1/policy/endorsements/${id}`, { token: world.token }),
        handle.describe(),
      ]);
      const workflow = state?.status ?? `workflow ${described.status.name}`;
      const attribute = described.typedSearchAttributes.get(EndorsementStatus);
      const apiStatus = res.body?.payload?.endorsement?.status as string | undefined;
      if (apiStatus !== workflow || attribute !== workflow) {
        disagreements.push({ id, api: apiStatus, workflow, searchAttribute: attribute });
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, check));
  return disagreements;
}

/**
 * Activity attempts beyond the first across the run's workflows (from ActivityTaskStarted events):
 * how much retrying the fault caused.
 */
export async function retriedAttempts(
  world: RunWorld,
  temporal: TemporalClient = stack().temporal,
): Promise<number> {
  const rows = await sqlOn(world.orm)('select id from endorsements where client_id = ?', [
    world.client.clientId,
  ]);
  let retries = 0;
  for (const { id } of rows) {
    const history = await temporal.workflow.getHandle(endorsementWorkflowId(id as string)).fetchHistory();
    for (const event of history.events ?? []) {
      const attempt = event.activityTaskStartedEventAttributes?.attempt ?? 1;
      retries += Math.max(0, attempt - 1);
    }
  }
  return retries;
}

/** The promise's value, or null when it has not settled within `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A fresh id of the right shape that nobody has (for "unknown id" comparisons). */
export const unknownId = (kind: Parameters<typeof newId>[0]) => newId(kind);
