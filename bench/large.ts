import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { TypedSearchAttributes, type SearchAttributePair } from '@temporalio/common';
import { createTokenService } from '../api/auth/tokens.js';
import { findStuckEndorsements } from '../admin/stuck.js';
import { operatorViews } from '../admin/views.js';
import { payloadDataConverter, temporalConnectionOptions } from '../infra/temporal-client.js';
import { systemClock } from '../domain/clock.js';
import { hashSecret, newClientSecret } from '../domain/credentials.js';
import { SCOPES } from '../domain/scopes.js';
import {
  AwaitingFunds,
  ClientId,
  EmployeeId,
  EndorsementSlaBreached,
  EndorsementStatus,
  EndorsementStuck,
  EndorsementType,
  InsurerId,
  PolicyId,
  SlaDueAt,
  SubmittedAt,
} from '../workflows/search-attributes.js';
import { ENDORSEMENT_WORKFLOW, endorsementStartOptions } from '../workflows/endorsement/contract.js';
import { loadBenchDataset, type BenchDataset } from './dataset.js';
import { seedInsurerBacklog } from './insurer-backlog.js';
import { cursorOfPage } from './pages.js';
import { compare, measure, median, type Figures } from './measure.js';
import { startBenchStack, type BenchStack } from './stack.js';

/**
 * `npm run bench:100k [-- --quick]`: one database holding 1,000 clients (999 small ones of 3 employees,
 * the 10,000-employee reference client of bench/dataset.ts, and one of 100,000 employees with 250,000
 * member rows on its first policy), and the hot reads of the large client against the reference client's
 * in the same run, alternating, median of the rounds. Then 100,000 open endorsements of the large
 * client (rows set-based, SENT_TO_INSURER; workflows started with the same search attributes on a task
 * queue no worker polls) and the operators' queries over them: `ops stuck`, the Web UI's visibility
 * queries that `ops views` prints, and the insurer's backlog API. Writes bench/results/large-latest.{json,md}.
 * BENCH_LARGE_EMPLOYEES / BENCH_LARGE_MEMBERS / BENCH_LARGE_OPEN size the large client (--quick: a tenth;
 * --reads: the reads alone).
 */
const quick = process.argv.includes('--quick');
/** `-- --reads`: the reads alone (the open endorsements' half skipped). */
const readsOnly = process.argv.includes('--reads');
const EMPLOYEES = Number(process.env.BENCH_LARGE_EMPLOYEES ?? (quick ? 10_000 : 100_000));
const MEMBERS = Number(process.env.BENCH_LARGE_MEMBERS ?? EMPLOYEES * 2.5);
const OPEN = Number(process.env.BENCH_LARGE_OPEN ?? EMPLOYEES);
const SMALL_CLIENTS = 999;
const REFERENCE_EMPLOYEES = 10_000;
const PAGE = 50;
/** The deep member page of each client: page 2,000 of the large one, page 200 of the reference's 400. */
const DEEP = { reference: 200, large: Math.min(2_000, Math.floor(MEMBERS / PAGE)) };
const PLAN = quick
  ? { rounds: 3, seconds: 2, warmup: 0.5, connections: 10 }
  : { rounds: 5, seconds: 5, warmup: 1, connections: 10 };
const QUERY_ROUNDS = 3;
/** A waiting endorsement is stuck, and past its SLA, once the insurer has had it a day (set so here). */
const DAY_MS = 86_400_000;
const START_CONCURRENCY = 128;
/**
 * Seconds the starts may take (BENCH_LARGE_START_SECONDS; default: until all are started): on a machine
 * shared with other work a start can cost a dev server 30 ms of a core, and the run states how many ran.
 */
const START_SECONDS = Number(process.env.BENCH_LARGE_START_SECONDS ?? Infinity);
const RESULTS = path.resolve(import.meta.dirname, 'results');
const ROOT = path.resolve(import.meta.dirname, '..');
const say = (what: string) => process.stderr.write(`bench:100k ${new Date().toISOString()} ${what}\n`);
const load = () => os.loadavg().map((l) => Number(l.toFixed(2)));

/** 999 clients of 3 employees, one policy and 3 member rows each, set-based: the tables carry 1,000 tenants. */
async function loadSmallClients(s: BenchStack, count: number): Promise<void> {
  const conn = s.orm.em.fork().getConnection();
  const hash = await hashSecret(newClientSecret());
  await conn.execute(
    `insert into clients (id, name, secret_hash, allowed_scopes)
       select 'cli_small' || c, 'Small Employer ' || c, ?, string_to_array(?, ',') from generate_series(1, ?) c`,
    [hash, SCOPES.join(','), count],
  );
  const people = `from generate_series(1, ?) c cross join generate_series(1, 3) k`;
  await conn.execute(
    `insert into users (id, client_id, email_key)
       select 'usr_small' || c || '_' || k, 'cli_small' || c, 'small' || c || '.' || k || '@example.com' ${people}`,
    [count],
  );
  await conn.execute(
    `insert into employees (id, client_id, user_id, employee_code, name, email, phone_number, date_of_birth, gender, status)
       select 'emp_small' || c || '_' || k, 'cli_small' || c, 'usr_small' || c || '_' || k, 'S-' || k,
              initcap(substr(md5((c * 3 + k)::text), 1, 8)), 'small' || c || '.' || k || '@example.com', '+919800000000',
              date '1985-01-01' + k, 'MALE', 'ACTIVE' ${people}`,
    [count],
  );
  await conn.execute(
    `insert into policies (id, client_id, policy_number, insurer_id, product_id, tpa_id, net_premium, gross_premium,
       coverage_type, type, status, start_date, end_date, slabs, default_sum_insured, cd_balance)
     select 'pol_small' || c, 'cli_small' || c, 'SMALL/' || c, p.insurer_id, p.product_id, p.tpa_id, 10000, 11800,
            p.coverage_type, p.type, p.status, p.start_date, p.end_date, p.slabs, p.default_sum_insured, 1000000
       from generate_series(1, ?) c cross join (select * from policies where id = ?) p`,
    [count, s.dataset.policyIds[0]],
  );
  await conn.execute(
    `insert into policy_members (id, client_id, policy_id, employee_id, coverage_start_date, coverage_end_date,
       premium_amount, sum_insured, remaining_sum_insured, status, employee_name, member_rank)
     select 'mem_small' || c || '_' || k, 'cli_small' || c, 'pol_small' || c, e.id, date '2026-01-01', date '2027-01-01',
            3650, 300000, 300000, 'active', e.name, 0
       ${people} join employees e on e.id = 'emp_small' || c || '_' || k`,
    [count],
  );
}

const tokenOf = (s: BenchStack, clientId: string) =>
  createTokenService({
    keys: s.config.JWT_SIGNING_KEYS!,
    issuer: s.config.JWT_ISSUER,
    audience: s.config.JWT_AUDIENCE,
    clock: systemClock,
  }).issue(clientId, SCOPES, 1);

interface ReadRow {
  reference: Figures;
  large: Figures;
  rps_ratio: number;
  p50_ratio: number;
  p99_ratio: number;
  met: boolean;
}

/** The hot reads of both clients, alternating reference / large each round; medians. */
async function reads(
  s: BenchStack,
  large: BenchDataset,
  cursors: { reference: string; large: string },
  only?: (name: string) => boolean,
  rounds = PLAN.rounds,
): Promise<Record<string, ReadRow>> {
  const ref = s.dataset;
  const tokens = { reference: s.token, large: tokenOf(s, large.clientId) };
  const urls = (d: BenchDataset, deepCursor: string): Record<string, string> => ({
    'GET /v1/policy/': `${s.apiUrl}/v1/policy/?client_id=${d.clientId}`,
    'GET /v1/policy/{id}/members page 1': `${s.apiUrl}/v1/policy/${d.membersPolicyId}/members?limit=${PAGE}`,
    [`GET /v1/policy/{id}/members page ${DEEP.large} (reference: page ${DEEP.reference})`]: `${s.apiUrl}/v1/policy/${d.membersPolicyId}/members?limit=${PAGE}&start_cursor=${deepCursor}`,
    'GET /v1/client/employees/profile': `${s.apiUrl}/v1/client/employees/profile?employee_id=${d.employeeIds[Math.floor(d.employeeIds.length / 2) + 42]}`,
  });
  const refUrls = urls(ref, cursors.reference);
  const largeUrls = urls(large, cursors.large);
  const run = (url: string, token: string) => timedLoad(token)(url);
  const out: Record<string, ReadRow> = {};
  for (const name of Object.keys(refUrls).filter(only ?? (() => true))) {
    say(name);
    const { ours, peer } = await compare(
      rounds,
      run(refUrls[name]!, tokens.reference),
      run(largeUrls[name]!, tokens.large),
    );
    if (ours.non2xx || peer.non2xx) throw new Error(`${name}: ${ours.non2xx + peer.non2xx} failed requests`);
    const r = (a: number, b: number) => Number((a / Math.max(b, 0.001)).toFixed(3));
    const row = {
      reference: ours,
      large: peer,
      rps_ratio: r(peer.rps, ours.rps),
      p50_ratio: r(peer.p50, ours.p50),
      p99_ratio: r(peer.p99, ours.p99),
    };
    out[name] = { ...row, met: row.rps_ratio >= 0.9 };
  }
  return out;
}

/**
 * The large client's OPEN endorsements as rows (bench/insurer-backlog.ts: SENT_TO_INSURER, the first
 * the oldest, one a second) and as running workflows with the search attributes such a workflow carries
 * there, started on a task queue no worker polls (a start is one visibility row; running 100,000 would
 * take hours on 2 cores). Stuck and past their SLA: those the insurer has had over a day.
 */
async function openEndorsements(s: BenchStack, temporal: Client, large: BenchDataset) {
  const insurerToken = await seedInsurerBacklog(s.orm.em.fork(), s.config, large, OPEN);
  const [insurer] = await s.orm.em.execute<{ id: string }[]>(`select id from insurers where code = 'BENCH'`);
  const policyId = large.policyIds[4]!;
  const [{ first_sent: firstSent }] = (await s.orm.em.execute<{ first_sent: Date }[]>(
    `select min(sent_to_insurer_at) as first_sent from endorsements where client_id = ? and policy_id = ?`,
    [large.clientId, policyId],
  )) as [{ first_sent: Date }];
  const now = Date.now();
  const first = new Date(firstSent).getTime();
  const queue = `${s.taskQueue}-unpolled`;
  const start = async (g: number) => {
    const endorsementId = `end_backlog_${large.tag}_${g}`;
    const submitted = new Date(first + (g - 1) * 1000);
    const late = now - submitted.getTime() > DAY_MS;
    const input = {
      endorsementId,
      clientId: large.clientId,
      policyId,
      employeeId: `emp_${large.tag}${g}`,
      type: 'ENDORSEMENT_TYPE_ADDITION' as const,
      stuckAfterMs: DAY_MS,
      slaAfterMs: DAY_MS,
    };
    const attributes: SearchAttributePair[] = [
      { key: EndorsementStatus, value: 'ENDORSEMENT_STATUS_SENT_TO_INSURER' },
      { key: EndorsementType, value: input.type },
      { key: ClientId, value: input.clientId },
      { key: PolicyId, value: policyId },
      { key: EmployeeId, value: input.employeeId },
      { key: EndorsementStuck, value: late },
      { key: AwaitingFunds, value: false },
      { key: InsurerId, value: insurer!.id },
      { key: SubmittedAt, value: submitted },
      { key: SlaDueAt, value: new Date(submitted.getTime() + DAY_MS) },
      { key: EndorsementSlaBreached, value: late },
    ];
    await temporal.workflow.start(ENDORSEMENT_WORKFLOW, {
      ...endorsementStartOptions(input, queue),
      typedSearchAttributes: new TypedSearchAttributes(attributes),
    });
  };
  const started = performance.now();
  const deadline = started + START_SECONDS * 1000;
  let next = 1;
  let done = 0;
  await Promise.all(
    Array.from({ length: START_CONCURRENCY }, async () => {
      while (next <= OPEN && performance.now() < deadline) {
        const g = next++;
        await start(g);
        if (++done % 5_000 === 0) say(`${done} workflows started`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  // Visibility is written as the starts are: wait until it lists every one.
  const all = `WorkflowType = '${ENDORSEMENT_WORKFLOW}' AND ExecutionStatus = 'Running' AND ClientId = '${large.clientId}'`;
  while (Number((await temporal.workflow.count(all)).count) < done)
    await new Promise((r) => setTimeout(r, 1000));
  return {
    insurerId: insurer!.id,
    insurerToken,
    workflows: done,
    start_seconds: Number(seconds.toFixed(1)),
    starts_per_second: Number((done / seconds).toFixed(1)),
    stuck: Math.max(0, Math.min(OPEN, Math.floor((now - first - DAY_MS) / 1000) + 1)),
  };
}

const timed = async (task: () => Promise<unknown>): Promise<number> => {
  const t = performance.now();
  await task();
  return performance.now() - t;
};

async function medianMs(task: () => Promise<unknown>, rounds = QUERY_ROUNDS): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) times.push(await timed(task));
  return Math.round(median(times));
}

/** `npm run -s ops -- stuck …` as an operator runs it, against this stack: wall ms and the rows it printed. */
async function opsStuck(s: BenchStack, args: string[]) {
  let rows = 0;
  const ms = await medianMs(async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'scripts/ops.ts', 'stuck', ...args, '--json'],
      { cwd: ROOT, env: { ...s.env, LOG_LEVEL: 'warn' }, maxBuffer: 256 * 1024 * 1024 },
    );
    rows = (JSON.parse(stdout) as unknown[]).length;
  });
  return { command: `ops stuck ${args.join(' ')}`.trim(), ms, rows };
}

/** The same query inside one process (no process start): visibility, then PostgreSQL. */
async function stuckQuery(s: BenchStack, temporal: Client, olderThanMs?: number) {
  let rows = 0;
  const ms = await medianMs(async () => {
    rows = (
      await findStuckEndorsements(temporal, s.orm.em.fork(), {
        olderThanMs,
        now: new Date(),
        webUi: (id) => id,
      })
    ).length;
  });
  return { command: `findStuckEndorsements${olderThanMs ? ' (older than 12h)' : ''}, in process`, ms, rows };
}

/** Each view `ops views` prints, as the Web UI's list runs it: the count, and the first page of 20. */
async function views(temporal: Client, insurerId: string) {
  const out = [];
  for (const v of operatorViews({
    uiBase: 'http://ui',
    namespace: 'default',
    insurerId,
    olderThanMs: DAY_MS,
    now: new Date(),
  })) {
    let count = 0;
    const count_ms = await medianMs(async () => {
      count = Number((await temporal.workflow.count(v.query)).count);
    });
    const first_page_ms = await medianMs(async () => {
      let n = 0;
      for await (const _ of temporal.workflow.list({ query: v.query, pageSize: 20 })) if (++n >= 20) break;
    });
    out.push({ view: v.view, query: v.query, count, count_ms, first_page_ms });
  }
  return out;
}

/** The insurer's backlog API (GET /v1/insurer/endorsements, limit 50): page 1 and page 200. */
/** One timed load of an authenticated GET at the plan's connections, duration and warm-up. */
const timedLoad = (token: string) => (url: string) => () =>
  measure({
    url,
    headers: { authorization: `Bearer ${token}` },
    connections: PLAN.connections,
    durationSeconds: PLAN.seconds,
    warmupSeconds: PLAN.warmup,
  });

async function backlog(s: BenchStack, token: string) {
  const list = `${s.apiUrl}/v1/insurer/endorsements`;
  const base = `${list}?limit=50`;
  const deep = `${base}&start_cursor=${await cursorOfPage(list, token, 200)}`;
  const run = timedLoad(token);
  const { ours, peer } = await compare(QUERY_ROUNDS, run(base), run(deep));
  return { page_1: ours, page_200: peer };
}

async function main(): Promise<void> {
  const startedAt = Date.now();
  const loadAtStart = load();
  say('the reference client (10,000 employees) and the stack');
  const s = await startBenchStack(REFERENCE_EMPLOYEES);
  const connection = await Connection.connect(temporalConnectionOptions(s.config));
  const temporal = new Client({ connection, dataConverter: payloadDataConverter(s.config) });
  try {
    // An insurer decided by people: nothing decides the open endorsements on its own.
    await s.orm.em.execute(`update insurers set adapter = 'manual' where code = 'BENCH'`);
    say(`the large client (${EMPLOYEES} employees, ${MEMBERS} members) and ${SMALL_CLIENTS} small ones`);
    const t0 = performance.now();
    const large = await loadBenchDataset(s.orm.em.fork(), EMPLOYEES, { tag: 'large', members: MEMBERS });
    await loadSmallClients(s, SMALL_CLIENTS);
    // Vacuumed as autovacuum leaves a table after a bulk load: the visibility map set, so index-only scans.
    await s.orm.em.execute('vacuum analyze');
    const loadSeconds = Number(((performance.now() - t0) / 1000).toFixed(1));
    const [counts] = await s.orm.em.execute<
      { clients: string; employees: string; members: string; postgres: string }[]
    >(
      `select (select count(*) from clients) as clients, (select count(*) from employees) as employees,
              (select count(*) from policy_members) as members, current_setting('server_version') as postgres`,
    );
    say('reads: reference vs large');
    const loadBeforeReads = load();
    say('walking to the deep member pages');
    const largeToken = tokenOf(s, large.clientId);
    const cursors = {
      reference: await cursorOfPage(
        `${s.apiUrl}/v1/policy/${s.dataset.membersPolicyId}/members`,
        s.token,
        DEEP.reference,
        PAGE,
      ),
      large: await cursorOfPage(
        `${s.apiUrl}/v1/policy/${large.membersPolicyId}/members`,
        largeToken,
        DEEP.large,
        PAGE,
      ),
    };
    const readRows = await reads(s, large, cursors);
    const loadAfterReads = load();
    await fs.mkdir(RESULTS, { recursive: true });
    const partial = {
      at: new Date().toISOString(),
      partial: 'reads only',
      load: [loadBeforeReads, loadAfterReads],
      reads: readRows,
    };
    await fs.writeFile(path.join(RESULTS, 'large-latest.json'), `${JSON.stringify(partial, null, 2)}\n`);
    if (readsOnly) {
      process.stdout.write(`${readsMarkdown(readRows)}\n`);
      return;
    }
    say(`opening ${OPEN} endorsements`);
    const opened = await openEndorsements(s, temporal, large);
    say('ops stuck');
    const loadBeforeQueries = load();
    const stuck = [
      await opsStuck(s, []),
      await stuckQuery(s, temporal),
      await opsStuck(s, ['--older-than', '12h']),
      await stuckQuery(s, temporal, DAY_MS / 2),
    ];
    say('the Web UI views');
    const vis = await views(temporal, opened.insurerId);
    say('the insurer backlog API');
    const api = await backlog(s, opened.insurerToken);
    const figures = {
      at: new Date().toISOString(),
      mode: quick ? 'quick' : 'full',
      temporal: 'dev server (temporal server start-dev: in-memory SQLite persistence and visibility)',
      dataset: {
        clients: Number(counts!.clients),
        employees: Number(counts!.employees),
        member_rows: Number(counts!.members),
        large: { employees: EMPLOYEES, members: MEMBERS },
        reference: { employees: REFERENCE_EMPLOYEES, members: 2 * REFERENCE_EMPLOYEES },
        load_seconds: loadSeconds,
        postgres: counts!.postgres,
      },
      plan: PLAN,
      cpus: os.cpus().length,
      load_avg: {
        at_start: loadAtStart,
        before_reads: loadBeforeReads,
        after_reads: loadAfterReads,
        before_queries: loadBeforeQueries,
        at_end: load(),
      },
      reads: readRows,
      open_endorsements: {
        open: OPEN,
        made: `rows set-based (SENT_TO_INSURER, one submitted a second, the first the oldest); workflows started through the client, ${START_CONCURRENCY} in flight, on a task queue no worker polls, with the search attributes of a waiting endorsement (stuck and SLA-breached once submitted over a day ago)`,
        workflows: opened.workflows,
        start_seconds: opened.start_seconds,
        starts_per_second: opened.starts_per_second,
        stuck: opened.stuck,
      },
      ops_stuck: stuck,
      views: vis,
      insurer_backlog: api,
      seconds: Math.round((Date.now() - startedAt) / 1000),
    };
    await fs.mkdir(RESULTS, { recursive: true });
    await fs.writeFile(path.join(RESULTS, 'large-latest.json'), `${JSON.stringify(figures, null, 2)}\n`);
    const md = markdown(figures);
    await fs.writeFile(path.join(RESULTS, 'large-latest.md'), md);
    process.stdout.write(md);
  } finally {
    await connection.close();
    await s.stop();
  }
}

/** The reads' table: each read of the large client against the same read of the reference client. */
function readsMarkdown(reads: Record<string, ReadRow>): string {
  const line = ([name, r]: [string, ReadRow]) =>
    `| ${name} | ${fmt(r.reference.rps)} / ${fmt(r.reference.p50)} / ${fmt(r.reference.p99)} | ${fmt(r.large.rps)} / ${fmt(r.large.p50)} / ${fmt(r.large.p99)} | ${r.rps_ratio} | ${r.p50_ratio} | ${r.met ? 'yes' : '**no**'} |`;
  return [
    '| read (10 connections; rps / p50 ms / p99 ms) | 10,000-employee client | 100,000-employee client | rps ratio | p50 ratio | within 10 % (rps >= 0.9x) |',
    '| --- | --- | --- | --- | --- | --- |',
    ...Object.entries(reads).map(line),
  ].join('\n');
}

const fmt = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));
const secs = (ms: number) => (ms / 1000).toFixed(2);

function markdown(f: {
  at: string;
  temporal: string;
  dataset: { clients: number; employees: number; member_rows: number; load_seconds: number };
  load_avg: Record<string, number[]>;
  reads: Record<string, ReadRow>;
  open_endorsements: {
    open: number;
    workflows: number;
    made: string;
    start_seconds: number;
    starts_per_second: number;
    stuck: number;
  };
  ops_stuck: { command: string; ms: number; rows: number }[];
  views: { view: string; query: string; count: number; count_ms: number; first_page_ms: number }[];
  insurer_backlog: { page_1: Figures; page_200: Figures };
}): string {
  const l = f.load_avg;
  const o = f.open_endorsements;
  return [
    `Run ${f.at}: ${f.dataset.clients} clients, ${f.dataset.employees} employees, ${f.dataset.member_rows} member rows in one database (loaded in ${f.dataset.load_seconds} s); load average at start ${l.at_start!.join(' / ')}, before the reads ${l.before_reads!.join(' / ')}, after them ${l.after_reads!.join(' / ')}.`,
    '',
    readsMarkdown(f.reads),
    '',
    `${o.open} open endorsements of the large client, ${o.workflows} of them with a running workflow: ${o.made}. ${o.start_seconds} s to start them (${o.starts_per_second}/s); ${o.stuck} stuck. Temporal: ${f.temporal}. Load average before the queries ${l.before_queries!.join(' / ')}, at the end ${l.at_end!.join(' / ')}.`,
    '',
    '| query (median of 3) | rows | seconds |',
    '| --- | --- | --- |',
    ...f.ops_stuck.map((q) => `| \`${q.command}\` (wall) | ${q.rows} | ${secs(q.ms)} |`),
    ...f.views.flatMap((v) => [
      `| view \`${v.view}\`: count | ${v.count} | ${secs(v.count_ms)} |`,
      `| view \`${v.view}\`: first page of 20 | ${Math.min(20, v.count)} | ${secs(v.first_page_ms)} |`,
    ]),
    `| GET /v1/insurer/endorsements?limit=50 page 1 (p50; ${fmt(f.insurer_backlog.page_1.rps)} rps) | 50 | ${secs(f.insurer_backlog.page_1.p50)} |`,
    `| the same, page 200 (p50; ${fmt(f.insurer_backlog.page_200.rps)} rps) | 50 | ${secs(f.insurer_backlog.page_200.p50)} |`,
    '',
  ].join('\n');
}

await main();
