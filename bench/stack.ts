import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { createTokenService } from '../api/auth/tokens.js';
import { newLocalKeys } from '../infra/local-keys.js';
import { apiConfig, loadConfig, type Config } from '../config/index.js';
import { initOrm, loginsOf, migrate, provisionLogins, type Orm } from '../db/orm.js';
import { derivedLogins } from '../db/roles.js';
import { systemClock } from '../domain/clock.js';
import { SCOPES } from '../domain/scopes.js';
import { dropDatabase, ensureDatabase } from '../db/databases.js';
import { startEmbeddedPostgres } from '../infra/postgres.js';
import { spawnEntry, waitForHttp } from '../infra/processes.js';
import { temporalConnectionOptions } from '../infra/temporal-client.js';
import { resolveTemporalCli, startDevServer, stopChild } from '../infra/temporal.js';
import { freePort } from '../infra/ports.js';
import { DEFAULT_HISTORY_SHARDS, startTemporalCluster } from '../infra/temporal-cluster.js';
import { clientTlsEnv } from '../infra/temporal-cluster-tls.js';
import { resolveServerBinaries } from '../infra/temporal-server-binaries.js';
import { loadBenchDataset, type BenchDataset } from './dataset.js';

/**
 * Settings the report quotes; tuned for a 2-core machine shared by Node, PostgreSQL and Temporal.
 * BENCH_TUNING (JSON, e.g. `{"workerPoolMax":20}`) overrides some for a run: the tuning and memory
 * measurements in docs/performance.md.
 */
const DEFAULT_SETTINGS = {
  apiPoolMax: 10,
  workerPoolMax: 10,
  workerActivityConcurrency: 20,
  workerWorkflowConcurrency: 40,
  workerCachedWorkflows: 1000,
  reuseV8Context: true,
};

/** BENCH_TUNING's numbers over the defaults; a name it does not know is refused, not ignored. */
function tuning(json = '{}'): Partial<typeof DEFAULT_SETTINGS> {
  const given = JSON.parse(json) as Record<string, unknown>;
  for (const [name, value] of Object.entries(given)) {
    if (
      !(name in DEFAULT_SETTINGS) ||
      typeof value !== typeof DEFAULT_SETTINGS[name as keyof typeof DEFAULT_SETTINGS]
    ) {
      throw new Error(
        `BENCH_TUNING: ${name} is not one of ${Object.keys(DEFAULT_SETTINGS).join(', ')} with a value of its type`,
      );
    }
  }
  return given;
}

/** Endorsement ids the census bench's bare-start peer gives its workflows: the no-op worker routes them as a file insurer's. */
export const FILE_PEER_PREFIX = 'end_filepeer';

export const BENCH_SETTINGS = { ...DEFAULT_SETTINGS, ...tuning(process.env.BENCH_TUNING) };

export interface BenchStack {
  config: Config;
  orm: Orm;
  apiUrl: string;
  peerUrl: string;
  databaseUrl: string;
  temporalAddress: string;
  taskQueue: string;
  dataset: BenchDataset;
  token: string;
  /** The environment the stack's processes run with (keys, database, Temporal): for operator commands. */
  env: NodeJS.ProcessEnv;
  /** The worker process, whose memory a scenario can read. */
  workerPid: number;
  /** The API process, likewise. */
  apiPid: number;
  /** The database server (any database of it) and what Temporal keeps there and runs as. */
  serverUrl: string;
  temporal: TemporalFootprint;
  stop(): Promise<void>;
}

/** Temporal's processes and databases, for the bench's CPU and transaction counts. */
export interface TemporalFootprint {
  /** The dev server's process, or the cluster's nodes. */
  pids(): number[];
  /** The cluster's persistence and visibility databases (none for the in-memory dev server). */
  databases: string[];
  /** The cluster's history shards (null on the dev server). */
  historyShards: number | null;
}

/** A worker process's environment on the stack's: the pool, slots and cache of BENCH_SETTINGS. */
export function workerProcessEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...env,
    DATABASE_POOL_MAX: String(BENCH_SETTINGS.workerPoolMax),
    WORKER_ACTIVITY_CONCURRENCY: String(BENCH_SETTINGS.workerActivityConcurrency),
    WORKER_WORKFLOW_CONCURRENCY: String(BENCH_SETTINGS.workerWorkflowConcurrency),
    WORKER_MAX_CACHED_WORKFLOWS: String(BENCH_SETTINGS.workerCachedWorkflows),
  };
}

/** An API process's environment on the stack's, listening on `port`. */
export function apiProcessEnv(env: NodeJS.ProcessEnv, port: number): NodeJS.ProcessEnv {
  return { ...env, PORT: String(port), DATABASE_POOL_MAX: String(BENCH_SETTINGS.apiPoolMax) };
}

export interface BackingServices {
  runId: string;
  /** The owner's login (migrations, the dataset), and the service's two (the processes'). */
  ownerDatabaseUrl: string;
  databaseUrl: string;
  systemDatabaseUrl: string;
  /** DATABASE_URL and DATABASE_SYSTEM_URL for a process's environment. */
  databaseEnv: { DATABASE_URL: string; DATABASE_SYSTEM_URL: string };
  temporalAddress: string;
  serverUrl: string;
  temporal: TemporalFootprint;
  /** Cleanups in start order; run them last to first. */
  stops: (() => Promise<void>)[];
}

/**
 * Migrates on the owner's ORM and gives the service's roles their logins (passwords derived from the
 * server's owner login, as the tests do).
 */
export async function migrateBenchDatabase(
  owner: Orm,
  services: Pick<BackingServices, 'databaseUrl' | 'systemDatabaseUrl'>,
): Promise<void> {
  await migrate(owner);
  await provisionLogins(owner, loginsOf([services.databaseUrl, services.systemDatabaseUrl]));
}

/** A fresh database, on DATABASE_OWNER_URL's (or DATABASE_URL's) server or an embedded PostgreSQL. */
export async function startBenchDatabase(
  label: string,
): Promise<Omit<BackingServices, 'temporalAddress' | 'temporal'>> {
  const stops: (() => Promise<void>)[] = [];
  const runId = randomBytes(4).toString('hex');
  let serverUrl = process.env.DATABASE_OWNER_URL || process.env.DATABASE_URL;
  if (!serverUrl) {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), `ghi-${label}-pg-`));
    const pg = await startEmbeddedPostgres(dir, await freePort());
    stops.push(async () => {
      await pg.stop();
      await fs.rm(dir, { recursive: true, force: true });
    });
    serverUrl = pg.url;
  }
  const dbName = `ghi_${label}_${runId}`;
  const ownerDatabaseUrl = await ensureDatabase(serverUrl, dbName);
  stops.push(() => dropDatabase(serverUrl, dbName));
  const logins = derivedLogins(ownerDatabaseUrl, serverUrl);
  const databaseEnv = { DATABASE_URL: logins.databaseUrl, DATABASE_SYSTEM_URL: logins.systemDatabaseUrl };
  return { runId, ownerDatabaseUrl, ...logins, databaseEnv, serverUrl, stops };
}

/**
 * A fresh database and a Temporal server: an in-memory dev server, or with BENCH_TEMPORAL=cluster the
 * production shape (`npm run test:cluster`'s two nodes on PostgreSQL, mTLS, behind a front door; its
 * databases on the same PostgreSQL server), whose client certificate goes into this process's
 * environment so the stack's processes and connections use it.
 */
export async function startBackingServices(label: string): Promise<BackingServices> {
  const { serverUrl, ...database } = await startBenchDatabase(label);
  const { runId, stops } = database;
  const cli = await resolveTemporalCli(process.env.TEMPORAL_CLI_PATH);
  if (benchTemporal() === 'cluster') {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), `ghi-${label}-cluster-`));
    const cluster = await startTemporalCluster({
      serverUrl,
      name: `ghi_temporal_${label}_${runId}`,
      namespace: 'default',
      binaries: await resolveServerBinaries(),
      cli,
      dir,
    });
    Object.assign(process.env, clientTlsEnv(cluster.tls));
    stops.push(async () => {
      await cluster.stop({ dropDatabases: true });
      await fs.rm(dir, { recursive: true, force: true });
    });
    const temporal: TemporalFootprint = {
      pids: () => cluster.nodes.flatMap((n) => (n.process?.pid ? [n.process.pid] : [])),
      databases: [cluster.databases.persistence, cluster.databases.visibility],
      historyShards: DEFAULT_HISTORY_SHARDS,
    };
    return { ...database, serverUrl, temporal, temporalAddress: cluster.address };
  }
  const dev = await startDevServer({ cli, port: await freePort() });
  stops.push(() => dev.stop());
  const temporal: TemporalFootprint = {
    pids: () => (dev.process.pid ? [dev.process.pid] : []),
    databases: [],
    historyShards: null,
  };
  return { ...database, serverUrl, temporal, temporalAddress: dev.address };
}

/** Which Temporal server the bench runs on: `dev` (default) or `cluster`. */
export function benchTemporal(): 'dev' | 'cluster' {
  const chosen = process.env.BENCH_TEMPORAL ?? 'dev';
  if (chosen !== 'dev' && chosen !== 'cluster')
    throw new Error(`BENCH_TEMPORAL must be dev or cluster, not ${chosen}`);
  return chosen;
}

/** How long the stack's processes may take to answer once started. */
export const READY_MS = 180_000;

/** Its own database, its own Temporal dev server, and the API, worker and peers as separate processes. */
export async function startBenchStack(employees: number): Promise<BenchStack> {
  const services = await startBackingServices('bench');
  const stopAll = async () => {
    while (services.stops.length)
      await services.stops.pop()!().catch((err: unknown) => console.error('bench cleanup:', err));
  };
  // A stack that fails to come up (a dataset statement timing out, a process never ready) stops
  // what it already started: its processes would otherwise outlive the bench and load the machine.
  try {
    return await startedBenchStack(services, employees, stopAll);
  } catch (err) {
    await stopAll();
    throw err;
  }
}

async function startedBenchStack(
  services: BackingServices,
  employees: number,
  stopAll: () => Promise<void>,
): Promise<BenchStack> {
  const { runId, ownerDatabaseUrl, databaseUrl, temporalAddress, stops } = services;

  const taskQueue = `bench-${runId}`;
  const [apiPort, peerPort] = [await freePort(), await freePort()];
  const env = {
    ...process.env,
    NODE_ENV: 'production',
    ...newLocalKeys('bench'),
    ...services.databaseEnv,
    DATABASE_OWNER_URL: '',
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_TASK_QUEUE: taskQueue,
    SIMULATED_INSURER_DELAY_MS: '0',
    // Metrics still served (their cost is part of a request's), on ports of their own: a bench runs beside other stacks.
    METRICS_PORT: String(await freePort()),
    WORKER_METRICS_PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
  };
  const config = apiConfig(loadConfig(env));
  const orm = await initOrm({ databaseUrl: ownerDatabaseUrl, poolMax: 5, as: 'owner' });
  stops.push(() => orm.close());
  await migrateBenchDatabase(orm, services);
  const dataset = await loadBenchDataset(orm.em.fork(), employees);

  const children: ChildProcess[] = [
    spawnEntry('worker/main.ts', {
      ...workerProcessEnv(env),
      // The worker's collections traced to this file (bench/worker-memory.ts reads the heaps after them).
      GC_TRACE_FILE: process.env.BENCH_WORKER_GC_TRACE,
    }),
    spawnEntry('api/main.ts', apiProcessEnv(env, apiPort)),
    spawnEntry('bench/peers/server.ts', {
      ...env,
      // The peers' owner pool shows what the policies cost (bench/peers/server.ts).
      DATABASE_OWNER_URL: ownerDatabaseUrl,
      PORT: String(peerPort),
      DATABASE_POOL_MAX: String(BENCH_SETTINGS.apiPoolMax),
    }),
    spawnEntry('bench/peers/noop-worker.ts', {
      ...env,
      TEMPORAL_TASK_QUEUE: `${taskQueue}-noop`,
      PEER_WORKER_METRICS_PORT: String(await freePort()),
    }),
  ];
  stops.push(async () => {
    await Promise.all(children.map((c) => stopChild(c)));
  });
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  // Minutes, not the default minute: on a 2-core machine shared with other runs a process's start can
  // take that long (a stack that does not come up is stopped by startBenchStack).
  await Promise.all([waitForHttp(`${apiUrl}/readyz`, READY_MS), waitForHttp(`${peerUrl}/hello`, READY_MS)]);
  // And both workers polling: each bundles its workflow code first, both cores busy for several
  // seconds after the API answers, which a scenario's first figures would otherwise measure.
  const connection = await Connection.connect(temporalConnectionOptions(config));
  try {
    await Promise.all([
      untilPolling(connection, config, taskQueue, children[0]!.pid!, WORKFLOW_AND_ACTIVITY),
      untilPolling(connection, config, `${taskQueue}-noop`, children[3]!.pid!, WORKFLOW_AND_ACTIVITY),
    ]);
  } finally {
    await connection.close();
  }

  const token = createTokenService({
    keys: config.JWT_SIGNING_KEYS,
    issuer: config.JWT_ISSUER,
    audience: config.JWT_AUDIENCE,
    clock: systemClock,
  }).issue(dataset.clientId, SCOPES, 1);
  return {
    config,
    orm,
    apiUrl,
    peerUrl,
    databaseUrl,
    temporalAddress,
    taskQueue,
    dataset,
    token,
    env,
    workerPid: children[0]!.pid!,
    apiPid: children[1]!.pid!,
    serverUrl: services.serverUrl,
    temporal: services.temporal,
    stop: stopAll,
  };
}

const { TaskQueueType } = proto.temporal.api.enums.v1;
export const WORKFLOW_AND_ACTIVITY = [
  TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
] as const;

/**
 * Until the worker process `pid` polls `taskQueue` for each of `types` (the server lists a worker's
 * pollers by identity, `pid@host` by default): a worker polls once its workflow code is bundled.
 */
export async function untilPolling(
  connection: Connection,
  config: Config,
  taskQueue: string,
  pid: number,
  types: readonly proto.temporal.api.enums.v1.TaskQueueType[],
  timeoutMs = READY_MS,
): Promise<void> {
  const polls = async (taskQueueType: proto.temporal.api.enums.v1.TaskQueueType) => {
    const described = await connection.workflowService.describeTaskQueue({
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: { name: taskQueue },
      taskQueueType,
    });
    return described.pollers?.some((p) => p.identity?.startsWith(`${pid}@`)) ?? false;
  };
  const deadline = Date.now() + timeoutMs;
  for (const type of types) {
    while (!(await polls(type))) {
      if (Date.now() > deadline)
        throw new Error(`worker ${pid} not polling ${taskQueue} after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * The API's own event-loop delay (prom-client's monitor, reset by each scrape): the longest and the
 * 99th percentile since the last scrape, in ms. Unlike /healthz timed from here, it leaves out this
 * process, which sends the requests on the same two cores.
 */
export async function apiLoopDelay(s: BenchStack): Promise<{ maxMs: number; p99Ms: number }> {
  const text = await (await fetch(`http://127.0.0.1:${s.env.METRICS_PORT}/metrics`)).text();
  const ms = (name: string) =>
    Math.round(Number(new RegExp(`^${name} ([0-9.e+-]+)`, 'm').exec(text)?.[1] ?? NaN) * 10_000) / 10;
  return { maxMs: ms('nodejs_eventloop_lag_max_seconds'), p99Ms: ms('nodejs_eventloop_lag_p99_seconds') };
}
