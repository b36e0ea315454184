import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import pg from 'pg';
import { spawnEntry, waitForHttp } from '../infra/processes.js';
import { temporalConnectionOptions } from '../infra/temporal-client.js';
import { stopChild } from '../infra/temporal.js';
import { freePort } from '../infra/ports.js';
import { additionBody, waitFor } from './endorsements.js';
import { measure, median } from './measure.js';
import {
  apiProcessEnv,
  BENCH_SETTINGS,
  benchTemporal,
  READY_MS,
  startBenchStack,
  untilPolling,
  workerProcessEnv,
  WORKFLOW_AND_ACTIVITY,
  type BenchStack,
} from './stack.js';

/**
 * `npm run bench:copies`: the endorsement throughput scenario (creates through the API, then every
 * endorsement to APPROVED through the simulated insurer at zero delay) with two worker and two API
 * processes (the creates split over both APIs) against one of each, alternating in one run, on the
 * two-node Temporal cluster (BENCH_TEMPORAL=dev for the dev server). Each phase counts, per
 * endorsement, the CPU milliseconds of every process kind (/proc/<pid>/stat) and the PostgreSQL
 * transactions and rows written in our database and in Temporal's (pg_stat_database), less what the
 * same processes and databases do idle in as long. BENCH_COPIES_ENDORSEMENTS (300) per phase,
 * BENCH_COPIES_ROUNDS (3) pairs. Writes bench/results/copies-latest.{json,md}.
 */
process.env.BENCH_TEMPORAL ??= 'cluster';
const N = Number(process.env.BENCH_COPIES_ENDORSEMENTS ?? 300);
const ROUNDS = Number(process.env.BENCH_COPIES_ROUNDS ?? 3);
/** Endorsements run before each phase's count: the fresh worker's code and caches warm, in both shapes. */
const WARM_UP = 40;
/** A backend reports its counts to pg_stat_database within ~10 s of going idle. */
const STATS_FLUSH_MS = 11_000;
const IDLE_MS = 30_000;
const CLOCK_TICK_MS = 10;
const RESULTS = path.resolve(import.meta.dirname, 'results');

type Kind = 'api' | 'worker' | 'temporal' | 'pg_ours' | 'pg_temporal' | 'pg_background' | 'bench_front_door';
const KINDS: Kind[] = [
  'api',
  'worker',
  'temporal',
  'pg_ours',
  'pg_temporal',
  'pg_background',
  'bench_front_door',
];

interface DbCounts {
  commits: number;
  rowsWritten: number;
}
interface Sample {
  at: number;
  cpu: Record<Kind, number>;
}

const ticksOf = (pid: number): number | null => {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(f[11]) + Number(f[12]);
  } catch {
    return null;
  }
};
const parentOf = (pid: number): number | null => {
  try {
    return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
  } catch {
    return null;
  }
};

/** A database of the stack's server by name, on the owner's login. */
const databaseUrl = (serverUrl: string, name: string) => {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
};

class Probe {
  /** Our own statements in the bench database (the completion polls): taken off its count. */
  polls = 0;
  private constructor(
    private readonly s: BenchStack,
    private readonly admin: pg.Client,
    private readonly bench: pg.Client,
    private readonly postmaster: number,
    readonly ours: string,
    readonly apiPids: () => number[],
    readonly workerPids: () => number[],
  ) {}

  static async open(s: BenchStack, apiPids: () => number[], workerPids: () => number[]): Promise<Probe> {
    const ours = new URL(s.databaseUrl).pathname.slice(1);
    const admin = new pg.Client({ connectionString: databaseUrl(s.serverUrl, 'postgres') });
    const bench = new pg.Client({ connectionString: databaseUrl(s.serverUrl, ours) });
    await admin.connect();
    await bench.connect();
    const { rows } = await admin.query<{ pid: number }>('select pg_backend_pid() as pid');
    const postmaster = parentOf(rows[0]!.pid)!;
    return new Probe(s, admin, bench, postmaster, ours, apiPids, workerPids);
  }

  async close(): Promise<void> {
    await this.admin.end();
    await this.bench.end();
  }

  async created(policyId: string): Promise<number> {
    this.polls++;
    const { rows } = await this.bench.query<{ n: string }>(
      'select count(*) as n from endorsements where policy_id = $1',
      [policyId],
    );
    return Number(rows[0]!.n);
  }

  async approved(policyId: string): Promise<number> {
    this.polls++;
    const { rows } = await this.bench.query<{ n: string }>(
      "select count(*) as n from endorsements where policy_id = $1 and status = 'ENDORSEMENT_STATUS_APPROVED'",
      [policyId],
    );
    return Number(rows[0]!.n);
  }

  /** Transactions and rows written per database group, as PostgreSQL has counted them so far. */
  async counts(): Promise<Record<'ours' | 'temporal' | 'visibility', DbCounts>> {
    await this.admin.query('select pg_stat_clear_snapshot()');
    const { rows } = await this.admin.query<{ datname: string; commits: string; written: string }>(
      `select datname, xact_commit + xact_rollback as commits, tup_inserted + tup_updated + tup_deleted as written
         from pg_stat_database where datname = any($1)`,
      [[this.ours, ...this.s.temporal.databases]],
    );
    const of = (name: string | undefined): DbCounts => {
      const row = rows.find((r) => r.datname === name);
      return { commits: Number(row?.commits ?? 0), rowsWritten: Number(row?.written ?? 0) };
    };
    return {
      ours: of(this.ours),
      temporal: of(this.s.temporal.databases[0]),
      visibility: of(this.s.temporal.databases[1]),
    };
  }

  /** CPU ticks so far of every process kind (PostgreSQL's server processes by the database they serve). */
  async sample(): Promise<Sample> {
    const cpu = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<Kind, number>;
    const add = (kind: Kind, pids: number[]) => {
      for (const pid of pids) cpu[kind] += ticksOf(pid) ?? 0;
    };
    add('api', this.apiPids());
    add('worker', this.workerPids());
    add('temporal', this.s.temporal.pids());
    const { rows } = await this.admin.query<{ pid: number; datname: string | null }>(
      'select pid, datname from pg_stat_activity',
    );
    const database = new Map(rows.map((r) => [r.pid, r.datname]));
    const temporalDbs = new Set(this.s.temporal.databases);
    const server = readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .map(Number)
      .filter((pid) => pid === this.postmaster || parentOf(pid) === this.postmaster);
    for (const pid of server) {
      const name = database.get(pid);
      if (name === this.ours) add('pg_ours', [pid]);
      else if (name && temporalDbs.has(name)) add('pg_temporal', [pid]);
      // Another database's backend on a shared server is not ours to count.
      else if (!name) add('pg_background', [pid]);
    }
    const own = process.cpuUsage();
    cpu.bench_front_door = (own.user + own.system) / 1000 / CLOCK_TICK_MS;
    return { at: performance.now(), cpu };
  }
}

const cpuMs = (a: Sample, b: Sample) =>
  Object.fromEntries(KINDS.map((k) => [k, (b.cpu[k] - a.cpu[k]) * CLOCK_TICK_MS])) as Record<Kind, number>;

interface Idle {
  seconds: number;
  commitsPerSecond: Record<'ours' | 'temporal' | 'visibility', number>;
  rowsPerSecond: Record<'ours' | 'temporal' | 'visibility', number>;
  cpuMsPerSecond: Record<Kind, number>;
}

interface Phase {
  copies: 1 | 2;
  endorsements: number;
  createFailures: number;
  createRps: number;
  createP99: number;
  completedPerSecond: number;
  busySeconds: number;
  /** Share of one core each process kind used while the endorsements ran (1 = one core). */
  coresBusy: Record<Kind, number>;
  cpuMsPerEndorsement: Record<Kind, number>;
  commitsPerEndorsement: Record<'ours' | 'temporal' | 'visibility', number>;
  rowsWrittenPerEndorsement: Record<'ours' | 'temporal' | 'visibility', number>;
  loadAverage: number[];
}

const DBS = ['ours', 'temporal', 'visibility'] as const;
const round = (x: number, digits = 2) => Number(x.toFixed(digits));

async function main(): Promise<void> {
  const phasesEmployees = 2 * ROUNDS * (N + WARM_UP);
  const s = await startBenchStack(Math.max(4000, phasesEmployees));
  const extra: ChildProcess[] = [];
  let probe: Probe | null = null;
  let connection: Connection | null = null;
  try {
    // The second API runs throughout (idle in the one-copy phases); the second worker only in the
    // two-copy phases, since a running worker takes tasks.
    const apiPort = await freePort();
    const api2 = spawnEntry('api/main.ts', {
      ...apiProcessEnv(s.env, apiPort),
      METRICS_PORT: String(await freePort()),
    });
    extra.push(api2);
    const apiUrls = [s.apiUrl, `http://127.0.0.1:${apiPort}`];
    await waitForHttp(`${apiUrls[1]}/readyz`, READY_MS);
    let worker2: ChildProcess | null = null;
    probe = await Probe.open(
      s,
      () => [s.apiPid, api2.pid!],
      () => [s.workerPid, ...(worker2?.pid ? [worker2.pid] : [])],
    );
    connection = await Connection.connect(temporalConnectionOptions(s.config));
    const policyId = s.dataset.policyIds[2]!;
    const headers = { authorization: `Bearer ${s.token}` };
    let nextEmployee = 0;
    const p = probe;
    /** Posts `count` additions over the first `copies` APIs (10 connections in all); the create rate. */
    const post = async (count: number, copies: 1 | 2) => {
      const ids = s.dataset.employeeIds.slice(nextEmployee, nextEmployee + count);
      nextEmployee += count;
      const bodies = ids.map((id) => additionBody(id, policyId));
      const share = Math.ceil(count / copies);
      const runs = await Promise.all(
        apiUrls.slice(0, copies).map((url, i) =>
          measure({
            url: `${url}/v1/policy/endorsements`,
            method: 'POST',
            headers,
            bodies: bodies.slice(i * share, (i + 1) * share),
            amount: bodies.slice(i * share, (i + 1) * share).length,
            connections: 10 / copies,
            warmupSeconds: 0,
          }),
        ),
      );
      // A create the API refused (a 503 when the workflow start timed out on a loaded machine) left no
      // row: the phase counts the endorsements that exist.
      const failed = runs.reduce((n, r) => n + r.non2xx + r.errors, 0);
      return { rps: runs.reduce((n, r) => n + r.rps, 0), p99: Math.max(...runs.map((r) => r.p99)), failed };
    };
    const settle = async (target: number) => {
      await waitFor(async () => (await p.approved(policyId)) >= target, 600_000);
    };
    const flush = () => new Promise((r) => setTimeout(r, STATS_FLUSH_MS));

    // Idle: what the stack does with nothing to do (Temporal's shard and queue upkeep above all).
    await flush();
    const idle0 = { counts: await p.counts(), sample: await p.sample(), polls: p.polls };
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const idle1 = { counts: await p.counts(), sample: await p.sample() };
    const idleSeconds = (idle1.sample.at - idle0.sample.at) / 1000;
    const idleCpu = cpuMs(idle0.sample, idle1.sample);
    const idle: Idle = {
      seconds: round(idleSeconds, 1),
      commitsPerSecond: Object.fromEntries(
        DBS.map((d) => [d, (idle1.counts[d].commits - idle0.counts[d].commits) / idleSeconds]),
      ) as Idle['commitsPerSecond'],
      rowsPerSecond: Object.fromEntries(
        DBS.map((d) => [d, (idle1.counts[d].rowsWritten - idle0.counts[d].rowsWritten) / idleSeconds]),
      ) as Idle['rowsPerSecond'],
      cpuMsPerSecond: Object.fromEntries(
        KINDS.map((k) => [k, idleCpu[k] / idleSeconds]),
      ) as Idle['cpuMsPerSecond'],
    };

    const phase = async (copies: 1 | 2): Promise<Phase> => {
      if (copies === 2) {
        worker2 = spawnEntry('worker/main.ts', {
          ...workerProcessEnv(s.env),
          WORKER_METRICS_PORT: String(await freePort()),
        });
        extra.push(worker2);
        const pid = worker2.pid!;
        await untilPolling(connection!, s.config, s.taskQueue, pid, WORKFLOW_AND_ACTIVITY, 120_000);
      }
      await post(WARM_UP, copies);
      await settle(await p.created(policyId));
      await flush();
      const c0 = await p.counts();
      const polls0 = p.polls;
      const a = await p.sample();
      const create = await post(N, copies);
      const n = N - create.failed;
      await settle(await p.created(policyId));
      const b = await p.sample();
      await flush();
      const c1 = await p.counts();
      const pollsInWindow = p.polls - polls0;
      const c = await p.sample();
      if (worker2) {
        await stopChild(worker2, 30_000);
        extra.splice(extra.indexOf(worker2), 1);
        worker2 = null;
      }
      const busySeconds = (b.at - a.at) / 1000;
      const windowSeconds = (c.at - a.at) / 1000;
      const busy = cpuMs(a, b);
      const all = cpuMs(a, c);
      const commits = (d: (typeof DBS)[number]) =>
        c1[d].commits -
        c0[d].commits -
        (d === 'ours' ? pollsInWindow : 0) -
        idle.commitsPerSecond[d] * windowSeconds;
      const rows = (d: (typeof DBS)[number]) =>
        c1[d].rowsWritten - c0[d].rowsWritten - idle.rowsPerSecond[d] * windowSeconds;
      return {
        copies,
        endorsements: n,
        createFailures: create.failed,
        createRps: round(create.rps, 1),
        createP99: create.p99,
        completedPerSecond: round(n / busySeconds),
        busySeconds: round(busySeconds, 1),
        coresBusy: Object.fromEntries(KINDS.map((k) => [k, round(busy[k] / 1000 / busySeconds)])) as Record<
          Kind,
          number
        >,
        cpuMsPerEndorsement: Object.fromEntries(
          KINDS.map((k) => [k, round((all[k] - idle.cpuMsPerSecond[k] * windowSeconds) / n, 1)]),
        ) as Record<Kind, number>,
        commitsPerEndorsement: Object.fromEntries(DBS.map((d) => [d, round(commits(d) / n, 1)])) as Record<
          (typeof DBS)[number],
          number
        >,
        rowsWrittenPerEndorsement: Object.fromEntries(DBS.map((d) => [d, round(rows(d) / n, 1)])) as Record<
          (typeof DBS)[number],
          number
        >,
        loadAverage: os.loadavg().map((x) => round(x)),
      };
    };

    const phases: Phase[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      // Alternating, and the order flips each round, so drift on the machine lands on both shapes.
      for (const copies of i % 2 ? ([1, 2] as const) : ([2, 1] as const)) {
        const result = await phase(copies);
        phases.push(result);
        process.stdout.write(`${JSON.stringify(result)}\n`);
        // Written after every phase: a run cut short still leaves what it measured.
        if (phases.some((x) => x.copies === 1) && phases.some((x) => x.copies === 2))
          await report(s, idle, phases);
      }
    }
  } finally {
    await connection?.close();
    await probe?.close();
    await Promise.all(extra.map((c) => stopChild(c)));
    await s.stop();
  }
}

/** The median of each figure over a shape's phases. */
function summary(phases: Phase[]) {
  const m = (f: (p: Phase) => number) => round(median(phases.map(f)), 2);
  return {
    phases: phases.length,
    completedPerSecond: m((p) => p.completedPerSecond),
    createRps: m((p) => p.createRps),
    createP99: m((p) => p.createP99),
    coresBusy: Object.fromEntries(KINDS.map((k) => [k, m((p) => p.coresBusy[k])])),
    cpuMsPerEndorsement: Object.fromEntries(KINDS.map((k) => [k, m((p) => p.cpuMsPerEndorsement[k])])),
    commitsPerEndorsement: Object.fromEntries(DBS.map((d) => [d, m((p) => p.commitsPerEndorsement[d])])),
    rowsWrittenPerEndorsement: Object.fromEntries(
      DBS.map((d) => [d, m((p) => p.rowsWrittenPerEndorsement[d])]),
    ),
  };
}

async function report(s: BenchStack, idle: Idle, phases: Phase[]): Promise<void> {
  const one = summary(phases.filter((p) => p.copies === 1));
  const two = summary(phases.filter((p) => p.copies === 2));
  const result = {
    date: new Date().toISOString(),
    temporal: benchTemporal(),
    historyShards: s.temporal.historyShards,
    cores: os.cpus().length,
    settings: BENCH_SETTINGS,
    endorsementsPerPhase: N,
    rounds: ROUNDS,
    idle,
    one,
    two,
    ratio: {
      completedPerSecond: round(two.completedPerSecond / one.completedPerSecond, 3),
      createRps: round(two.createRps / one.createRps, 3),
    },
    phases,
  };
  await fs.mkdir(RESULTS, { recursive: true });
  await fs.writeFile(path.join(RESULTS, 'copies-latest.json'), `${JSON.stringify(result, null, 2)}\n`);
  const loads = phases.map((p) => p.loadAverage[0]!);
  const line = (label: string, f: (x: typeof one) => number | string) =>
    `| ${label} | ${f(one)} | ${f(two)} |`;
  const md = [
    `# Two API and two worker copies against one of each (${result.date.slice(0, 10)})`,
    '',
    `\`npm run bench:copies\`: Temporal ${result.temporal} (${result.historyShards ?? '—'} history shards), ${result.cores} cores, ` +
      `${N} endorsements per phase, ${ROUNDS} rounds alternating; 1-minute load average ${Math.min(...loads)}–${Math.max(...loads)}. ` +
      'Per endorsement: less what the same processes and databases do idle for as long ' +
      `(idle: ${DBS.map((d) => `${d} ${round(idle.commitsPerSecond[d], 1)} commits/s`).join(', ')}).`,
    '',
    '| median | one of each | two of each |',
    '| --- | --- | --- |',
    line('endorsements completed per second', (x) => x.completedPerSecond),
    line('creates per second (10 connections)', (x) => x.createRps),
    line('create p99 ms', (x) => x.createP99),
    ...KINDS.map((k) => line(`CPU ms per endorsement, ${k}`, (x) => x.cpuMsPerEndorsement[k]!)),
    ...KINDS.map((k) => line(`cores busy while running, ${k}`, (x) => x.coresBusy[k]!)),
    ...DBS.map((d) =>
      line(`PostgreSQL transactions per endorsement, ${d}`, (x) => x.commitsPerEndorsement[d]!),
    ),
    ...DBS.map((d) =>
      line(`PostgreSQL rows written per endorsement, ${d}`, (x) => x.rowsWrittenPerEndorsement[d]!),
    ),
    '',
    `Two of each / one of each: completed per second ${result.ratio.completedPerSecond}, creates per second ${result.ratio.createRps}.`,
    '',
  ].join('\n');
  await fs.writeFile(path.join(RESULTS, 'copies-latest.md'), md);
  process.stdout.write(md);
}

await main();
