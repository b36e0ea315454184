import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
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
import { freePort, resolveTemporalCli, startDevServer, stopChild } from '../infra/temporal.js';
import { startTemporalCluster } from '../infra/temporal-cluster.js';
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
  stop(): Promise<void>;
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
): Promise<Omit<BackingServices, 'temporalAddress'> & { serverUrl: string }> {
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
    return { ...database, temporalAddress: cluster.address };
  }
  const dev = await startDevServer({ cli, port: await freePort() });
  stops.push(() => dev.stop());
  return { ...database, temporalAddress: dev.address };
}

/** Which Temporal server the bench runs on: `dev` (default) or `cluster`. */
export function benchTemporal(): 'dev' | 'cluster' {
  const chosen = process.env.BENCH_TEMPORAL ?? 'dev';
  if (chosen !== 'dev' && chosen !== 'cluster')
    throw new Error(`BENCH_TEMPORAL must be dev or cluster, not ${chosen}`);
  return chosen;
}

/** Its own database, its own Temporal dev server, and the API, worker and peers as separate processes. */
export async function startBenchStack(employees: number): Promise<BenchStack> {
  const services = await startBackingServices('bench');
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
      ...env,
      DATABASE_POOL_MAX: String(BENCH_SETTINGS.workerPoolMax),
      WORKER_ACTIVITY_CONCURRENCY: String(BENCH_SETTINGS.workerActivityConcurrency),
      WORKER_WORKFLOW_CONCURRENCY: String(BENCH_SETTINGS.workerWorkflowConcurrency),
      WORKER_MAX_CACHED_WORKFLOWS: String(BENCH_SETTINGS.workerCachedWorkflows),
      // The worker's collections traced to this file (bench/worker-memory.ts reads the heaps after them).
      GC_TRACE_FILE: process.env.BENCH_WORKER_GC_TRACE,
    }),
    spawnEntry('api/main.ts', {
      ...env,
      PORT: String(apiPort),
      DATABASE_POOL_MAX: String(BENCH_SETTINGS.apiPoolMax),
    }),
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
  // Three minutes: on a machine shared with other benches, starting (and compiling) a process takes a while.
  await Promise.all([waitForHttp(`${apiUrl}/readyz`, 180_000), waitForHttp(`${peerUrl}/hello`, 180_000)]);

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
    stop: async () => {
      while (stops.length) await stops.pop()!().catch((err: unknown) => console.error('bench cleanup:', err));
    },
  };
}
