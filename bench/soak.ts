import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import autocannon from 'autocannon';
import { createTokenService } from '../api/auth/tokens.js';
import { newLocalKeys } from '../infra/local-keys.js';
import { apiConfig, loadConfig } from '../config/index.js';
import { initOrm, type Orm } from '../db/orm.js';
import { systemClock } from '../domain/clock.js';
import { SCOPES } from '../domain/scopes.js';
import { spawnEntry, waitForHttp } from '../infra/processes.js';
import { stopChild } from '../infra/temporal.js';
import { freePort } from '../infra/ports.js';
import { loadBenchDataset, type BenchDataset } from './dataset.js';
import { migrateBenchDatabase, startBackingServices } from './stack.js';

/**
 * `npm run soak [-- --minutes N]`: mixed load at half the measured capacity for N minutes (default
 * 10, at most 10) against the API and the worker as their own processes, on loopback, with their
 * own database and Temporal dev server. Reads (policies, members, profile, coverage, endorsement,
 * health-card PDF) chosen at random per request, and endorsement creates (each employee once) on
 * their own connections. Capacity is measured first for 20 s: the read rate the API sustains, and
 * the rate at which the API, the worker and the simulated insurer complete endorsements (create to
 * APPROVED; the pipeline, not the API, bounds creates). The soak runs at half of each. Reported per
 * minute: requests, 5xx, p50/p99 and the resident memory of the API and the worker. Pass lines:
 * 0 5xx, resident memory growth under 10 % and p99 within 20 % from the first minute to the last,
 * every endorsement final after a 2-minute drain. Not part of CI; results in
 * bench/results/soak-latest.{json,md}.
 */
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const MINUTES = Math.max(1, Math.min(10, arg('minutes', 10)));
const CAPACITY_SECONDS = 20;
const CONNECTIONS = 16;
const EMPLOYEES = 10_000;

interface Minute {
  minute: number;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  createP99: number;
  non2xx: number;
  errors: number;
  s5xx: number;
  readStatuses: Record<string, number>;
  createStatuses: Record<string, number>;
  apiRssMiB: number;
  workerRssMiB: number;
}

async function rssMiB(pid: number): Promise<number> {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

/** Requests chosen at random per call; reads and creates on their own connections and rates. */
function mix(dataset: BenchDataset, token: string, pdfPaths: string[]) {
  // A fresh headers object per request: autocannon writes a body's Content-Length into the one it gets.
  const auth = () => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });
  const endorsementIds: string[] = [];
  let nextEmployee = 0;
  const any = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)]!;
  const employee = () => any(dataset.employeeIds);
  const get = (req: autocannon.Request, p: string, headers: Record<string, string> = auth()) => ({
    ...req,
    method: 'GET' as const,
    path: p,
    headers,
  });
  return {
    endorsementIds,
    read: (req: autocannon.Request): autocannon.Request => {
      const roll = Math.random();
      if (roll < 0.22) return get(req, `/v1/policy/?client_id=${dataset.clientId}`);
      if (roll < 0.44) return get(req, `/v1/policy/${dataset.membersPolicyId}/members?limit=20`);
      if (roll < 0.66) return get(req, `/v1/client/employees/profile?employee_id=${employee()}`);
      if (roll < 0.88) return get(req, `/v1/policy/coverage/${employee()}`);
      if (roll < 0.95 && endorsementIds.length > 0)
        return get(req, `/v1/policy/endorsements/${any(endorsementIds)}`);
      return get(req, any(pdfPaths), {});
    },
    /** Each employee once; once all are used, creates turn into reads of created endorsements. */
    create: (req: autocannon.Request): autocannon.Request => {
      if (nextEmployee >= dataset.employeeIds.length)
        return get(req, `/v1/policy/endorsements/${any(endorsementIds)}`);
      const body = JSON.stringify({
        employee_id: dataset.employeeIds[nextEmployee++],
        policy_id: dataset.policyIds[3],
        type: 'ADDITION',
        coverage_start_date: '2026-04-01',
        coverage_end_date: '2027-03-31',
      });
      return { ...req, method: 'POST', path: '/v1/policy/endorsements', headers: auth(), body };
    },
    onResponse: (status: number, body: string) => {
      // Only a create's answer; member rows carry `endorsement_id` too.
      if (status !== 200 || !body.startsWith('{"payload":{"endorsement_id"')) return;
      endorsementIds.push(
        (JSON.parse(body) as { payload: { endorsement_id: string } }).payload.endorsement_id,
      );
    },
  };
}

type Load = ReturnType<typeof mix>;

async function stream(
  url: string,
  load: Load,
  setupRequest: (req: autocannon.Request) => autocannon.Request,
  o: { seconds: number; connections: number; rate?: number },
) {
  const result = await autocannon({
    url,
    connections: o.connections,
    duration: o.seconds,
    ...(o.rate ? { overallRate: Math.max(1, Math.round(o.rate)) } : {}),
    requests: [{ setupRequest, onResponse: (status: number, body: string) => load.onResponse(status, body) }],
  });
  return {
    requests: result.requests.total,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    s5xx: result['5xx'],
    statuses: Object.fromEntries(
      Object.entries(result.statusCodeStats as Record<string, { count: number }>).map(([code, stat]) => [
        code,
        stat.count,
      ]),
    ),
  };
}

interface Rates {
  reads: number;
  creates: number;
}

/** Reads and creates side by side for `seconds`, each at its rate (unbounded without). */
async function run(url: string, load: Load, seconds: number, rates?: Rates) {
  const createConnections = 2;
  const [reads, creates] = await Promise.all([
    stream(url, load, load.read, {
      seconds,
      connections: CONNECTIONS - createConnections,
      ...(rates ? { rate: rates.reads } : {}),
    }),
    stream(url, load, load.create, {
      seconds,
      connections: createConnections,
      ...(rates ? { rate: rates.creates } : {}),
    }),
  ]);
  return {
    requests: reads.requests + creates.requests,
    rps: Math.round(reads.rps + creates.rps),
    p50: reads.p50,
    p99: reads.p99,
    createP99: creates.p99,
    non2xx: reads.non2xx + creates.non2xx,
    errors: reads.errors + creates.errors,
    s5xx: reads.s5xx + creates.s5xx,
    readStatuses: reads.statuses,
    createStatuses: creates.statuses,
    readRps: reads.rps,
  };
}

/** Waits (bounded) until no endorsement is open; returns how many are left. */
async function drain(orm: Orm, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await orm.em
      .getConnection()
      .execute<{ n: number }[]>(
        `select count(*)::int as n from endorsements where status in ('ENDORSEMENT_STATUS_PENDING', 'ENDORSEMENT_STATUS_SENT_TO_INSURER')`,
      );
    if (row!.n === 0 || Date.now() > deadline) return row!.n;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

async function main(): Promise<void> {
  const stops: (() => Promise<void>)[] = [];
  try {
    const services = await startBackingServices('soak');
    stops.push(...services.stops);
    const { runId, ownerDatabaseUrl, temporalAddress } = services;

    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = {
      ...process.env,
      NODE_ENV: 'production',
      ...newLocalKeys('soak'),
      ...services.databaseEnv,
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_TASK_QUEUE: `soak-${runId}`,
      SIMULATED_INSURER_DELAY_MS: '1000',
      METRICS_PORT: '0',
      WORKER_METRICS_PORT: '0',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      BASE_URL: url,
    };
    const config = apiConfig(loadConfig(env));
    const orm = await initOrm({ databaseUrl: ownerDatabaseUrl, poolMax: 4, as: 'owner' });
    stops.push(() => orm.close());
    await migrateBenchDatabase(orm, services);
    const dataset = await loadBenchDataset(orm.em.fork(), EMPLOYEES);

    const worker: ChildProcess = spawnEntry('worker/main.ts', env);
    const api: ChildProcess = spawnEntry('api/main.ts', { ...env, PORT: String(port) });
    stops.push(async () => {
      await Promise.all([stopChild(api), stopChild(worker)]);
    });
    await waitForHttp(`${url}/readyz`, 120_000);

    const token = createTokenService({
      keys: config.JWT_SIGNING_KEYS,
      issuer: config.JWT_ISSUER,
      audience: config.JWT_AUDIENCE,
      clock: systemClock,
    }).issue(dataset.clientId, SCOPES, 1);
    const pdfPaths: string[] = [];
    for (const id of dataset.employeeIds.slice(0, 20)) {
      const res = await fetch(`${url}/v1/policy/coverage/${id}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const entries = ((await res.json()) as { payload: { pdf_url: string }[] }).payload;
      pdfPaths.push(new URL(entries[0]!.pdf_url).pathname + new URL(entries[0]!.pdf_url).search);
    }
    const probe = await fetch(`${url}${pdfPaths[0]}`);
    if (probe.status !== 200)
      throw new Error(`health card link answers ${probe.status}: ${await probe.text()}`);

    const load = mix(dataset, token, pdfPaths);
    // Capacity: reads as fast as the API answers them, and endorsements as fast as the whole
    // pipeline (API, worker, simulated insurer) completes them, measured until the last is final.
    const started = Date.now();
    const capacity = await run(url, load, CAPACITY_SECONDS);
    if ((await drain(orm, 300_000)) > 0) throw new Error('capacity endorsements did not complete');
    const completedPerSecond = load.endorsementIds.length / ((Date.now() - started) / 1000);
    const rates = { reads: capacity.readRps / 2, creates: completedPerSecond / 2 };
    console.log(
      `capacity: reads ${Math.round(capacity.readRps)} req/s, endorsements ${completedPerSecond.toFixed(1)} completed/s; ` +
        `soaking at half of each for ${MINUTES} min`,
    );

    const minutes: Minute[] = [];
    for (let m = 1; m <= MINUTES; m++) {
      const r = await run(url, load, 60, rates);
      const row = {
        minute: m,
        ...r,
        apiRssMiB: await rssMiB(api.pid!),
        workerRssMiB: await rssMiB(worker.pid!),
      };
      minutes.push(row);
      console.log(JSON.stringify(row));
    }

    // Every endorsement created under load reaches a final status (bounded drain).
    const open = await drain(orm, 120_000);
    await write(
      summary(capacity.readRps, completedPerSecond, rates, minutes, load.endorsementIds.length, open),
    );
  } finally {
    while (stops.length) await stops.pop()!().catch((err: unknown) => console.error('soak cleanup:', err));
  }
}

function summary(
  readCapacity: number,
  endorsementCapacity: number,
  rates: Rates,
  minutes: Minute[],
  created: number,
  open: number,
) {
  const first = minutes[0]!;
  const last = minutes.at(-1)!;
  const growth = (a: number, b: number) => Math.round(((b - a) / a) * 1000) / 10;
  const round = (n: number) => Math.round(n * 10) / 10;
  return {
    at: new Date().toISOString(),
    readCapacityRps: round(readCapacity),
    endorsementCapacityPerSecond: round(endorsementCapacity),
    soakReadRps: round(rates.reads),
    soakCreatesPerSecond: round(rates.creates),
    minutes,
    total5xx: minutes.reduce((n, m) => n + m.s5xx, 0),
    apiRssGrowthPct: growth(first.apiRssMiB, last.apiRssMiB),
    workerRssGrowthPct: growth(first.workerRssMiB, last.workerRssMiB),
    p99ChangePct: growth(first.p99, last.p99),
    createP99ChangePct: growth(first.createP99, last.createP99),
    endorsementsCreated: created,
    endorsementsOpenAfterDrain: open,
  };
}

async function write(s: ReturnType<typeof summary>): Promise<void> {
  const dir = path.resolve(import.meta.dirname, 'results');
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, 'soak-latest.json'), `${JSON.stringify(s, null, 2)}\n`);
  const lines = [
    `Soak ${s.at}: capacity ${s.readCapacityRps} reads/s and ${s.endorsementCapacityPerSecond} endorsements completed/s; ` +
      `soaked at ${s.soakReadRps} reads/s and ${s.soakCreatesPerSecond} creates/s for ${s.minutes.length} min.`,
    '',
    '| minute | requests | req/s | reads p50 ms | reads p99 ms | creates p99 ms | non-2xx | 5xx | API RSS MiB | worker RSS MiB |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...s.minutes.map(
      (m) =>
        `| ${m.minute} | ${m.requests} | ${m.rps} | ${m.p50} | ${m.p99} | ${m.createP99} | ${m.non2xx} | ${m.s5xx} | ${m.apiRssMiB} | ${m.workerRssMiB} |`,
    ),
    '',
    `5xx: ${s.total5xx} (pass: 0). API RSS growth ${s.apiRssGrowthPct} %, worker ${s.workerRssGrowthPct} % (pass: < 10 %).`,
    `p99 first to last minute: reads ${s.p99ChangePct} %, creates ${s.createP99ChangePct} % (pass: within 20 %). Endorsements created ${s.endorsementsCreated}, open after drain ${s.endorsementsOpenAfterDrain}.`,
  ];
  const md = `${lines.join('\n')}\n`;
  await fs.writeFile(path.join(dir, 'soak-latest.md'), md);
  process.stdout.write(md);
}

await main();
