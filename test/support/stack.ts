import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import type { Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { apiConfig, loadConfig, type ApiConfig } from '../../config/index.js';
import type { AppDeps } from '../../api/deps.js';
import { createLogger } from '../../infra/logger.js';
import { listenMetrics } from '../../api/metrics-server.js';
import { buildDeps, listen } from '../../api/server.js';
import { initOrm, loginsOf, migrate, provisionLogins, type Orm } from '../../db/orm.js';
import { derivedLogins } from '../../db/roles.js';
import { systemClock, type Clock } from '../../domain/clock.js';
import { dropDatabase, ensureDatabase } from '../../db/databases.js';
import { startEmbeddedPostgres, type RunningPostgres } from '../../infra/postgres.js';
import {
  ensureSearchAttributes,
  resolveTemporalCli,
  startDevServer,
  type RunningDevServer,
} from '../../infra/temporal.js';
import { freePort } from '../../infra/ports.js';
import { newLocalKeys } from '../../infra/local-keys.js';
import { payloadDataConverter, temporalConnectionOptions } from '../../infra/temporal-client.js';
import { createWorker } from '../../worker/create-worker.js';
import { createWebhookWorker } from '../../worker/webhook-worker.js';
import { defaultAdapterRegistry, type AdapterRegistry } from '../../adapters/registry.js';
import { assertAnswersMatchContract, recordAnswer } from './contract.js';
import { startTestCluster, testTemporal } from './cluster.js';
import { demandStack } from './stack-demand.js';
import type { RunningCluster } from '../../infra/temporal-cluster.js';

/**
 * One isolated stack per test run: its own database (on DATABASE_URL's server or an embedded
 * PostgreSQL), its own Temporal dev server (or, with TEST_TEMPORAL=cluster, its own two-node cluster on
 * PostgreSQL; or its own task queue on TEMPORAL_ADDRESS), and a real worker. Two runs, or a running `npm start`, never see each other's data or tasks.
 */
export interface TestStack {
  runId: string;
  config: ApiConfig;
  /**
   * The database owner's ORM: migrations, fixtures (test/support/factories.ts) and checks that read
   * across tenants. It bypasses row-level security; the service does not run on it.
   */
  orm: Orm;
  /**
   * The service's ORM (db/orm.ts): its pools log in as the service role and the system role, held to
   * row-level security; the worker and every API run on it.
   */
  serviceOrm: Orm;
  temporal: Client;
  /** The service role's login (DATABASE_URL of the API and the worker). */
  databaseUrl: string;
  /** The system role's login (DATABASE_SYSTEM_URL). */
  systemDatabaseUrl: string;
  /** The owner's login on this run's database (migrations, fixtures); the service never gets it. */
  ownerDatabaseUrl: string;
  /** DATABASE_URL and DATABASE_SYSTEM_URL, for the environment of an API or worker child process. */
  databaseEnv: { DATABASE_URL: string; DATABASE_SYSTEM_URL: string };
  temporalAddress: string;
  temporalUiUrl: string | null;
  /** The Temporal cluster of this run with TEST_TEMPORAL=cluster (its nodes can be killed), else null. */
  cluster: RunningCluster | null;
  /** The cluster's own PostgreSQL server with TEST_TEMPORAL=cluster (it can be restarted), else null. */
  clusterPostgres: RunningPostgres | null;
  taskQueue: string;
  worker: Worker;
  /** The worker's insurer adapters; tests register recording doubles here (and restore them). */
  adapters: AdapterRegistry;
  /** The worker's clock: the system's until a test pins it (and resets it after). */
  workerClock: WorkerClock;
  /** Builds app deps on this stack; override the clock or anything else per test. */
  deps(overrides?: Partial<AppDeps>): Promise<AppDeps>;
  /** Starts an API on a free port with these deps; closed with the stack. */
  startApi(overrides?: Partial<AppDeps>): Promise<{
    url: string;
    /** The API's metrics port (its own server), or null with METRICS_ENABLED=false. */
    metricsUrl: string | null;
    deps: AppDeps;
    close(): Promise<void>;
  }>;
}

/**
 * Every test calls the token route from 127.0.0.1, so the failed-request budgets (D4) would be shared
 * by unrelated tests; the stack raises them and the rate-limit tests set the shipped values back.
 */
export const SHARED_SOURCE_BUDGETS = {
  TOKEN_FAILURES_PER_CLIENT_SOURCE: '1000000',
  TOKEN_FAILURES_PER_SOURCE: '1000000',
};

/** Signing and payload keys of this run (no development keys exist); child processes get the same. */
export const TEST_KEYS: Record<string, string> = { ...newLocalKeys('test') };

/** The database variables a run sets itself (a test process's environment may name a server's owner). */
const NO_DATABASE = { DATABASE_URL: '', DATABASE_SYSTEM_URL: '', DATABASE_OWNER_URL: '' };

/** A clock that follows the system's until pinned; `reset` follows the system's again. */
export interface WorkerClock extends Clock {
  set(at: Date | string): void;
  reset(): void;
}

function workerClock(): WorkerClock {
  let pinned: Date | null = null;
  return {
    now: () => (pinned ? new Date(pinned) : systemClock.now()),
    set: (at) => {
      pinned = new Date(at);
    },
    reset: () => {
      pinned = null;
    },
  };
}

let current: TestStack | null = null;
const cleanups: (() => Promise<void>)[] = [];

export function stack(): TestStack {
  if (!current) throw new Error('test stack not started (test/support/hooks.ts)');
  return current;
}

export async function startStack(): Promise<TestStack> {
  const runId = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  // A server to run on is named by its owner's login (DATABASE_OWNER_URL, or DATABASE_URL as before
  // the service had logins of its own); the run's own logins replace whatever the environment says.
  let serverUrl = process.env.DATABASE_OWNER_URL || process.env.DATABASE_URL;
  const base = loadConfig({
    ...process.env,
    ...NO_DATABASE,
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
  });
  Runtime.install({ logger: new (await import('@temporalio/worker')).DefaultLogger('WARN') });

  if (!serverUrl) {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ghi-test-pg-'));
    const pg: RunningPostgres = await startEmbeddedPostgres(dir, await freePort());
    cleanups.push(async () => {
      await pg.stop();
      await fs.rm(dir, { recursive: true, force: true });
    });
    serverUrl = pg.url;
  }
  const dbName = `ghi_test_${runId}`;
  const ownerDatabaseUrl = await ensureDatabase(serverUrl, dbName);
  cleanups.push(() => dropDatabase(serverUrl, dbName));
  // Passwords derived from the owner's login: every run on one server gives the cluster-wide roles
  // the same ones, so concurrent runs never lock each other out.
  const { databaseUrl, systemDatabaseUrl } = derivedLogins(ownerDatabaseUrl, serverUrl);
  const databaseEnv = { DATABASE_URL: databaseUrl, DATABASE_SYSTEM_URL: systemDatabaseUrl };

  let temporalAddress = base.TEMPORAL_ADDRESS;
  let temporalUiUrl: string | null = null;
  let cluster: RunningCluster | null = null;
  let clusterPostgres: RunningPostgres | null = null;
  if (!temporalAddress && testTemporal() === 'cluster') {
    const started = await startTestCluster({
      runId,
      namespace: base.TEMPORAL_NAMESPACE,
      cliPath: base.TEMPORAL_CLI_PATH,
    });
    cleanups.push(() => started.stop());
    cluster = started.cluster;
    clusterPostgres = started.postgres;
    temporalAddress = cluster.address;
  }
  if (!temporalAddress) {
    const dev: RunningDevServer = await startDevServer({
      cli: await resolveTemporalCli(base.TEMPORAL_CLI_PATH),
      port: await freePort(),
      uiPort: await freePort(),
    });
    cleanups.push(() => dev.stop());
    temporalAddress = dev.address;
    temporalUiUrl = dev.uiUrl;
  }
  const taskQueue = `test-${runId}`;
  const config = apiConfig(
    loadConfig({
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
      ...NO_DATABASE,
      ...databaseEnv,
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_TASK_QUEUE: taskQueue,
      SIMULATED_INSURER_DELAY_MS: '0',
      ...SHARED_SOURCE_BUDGETS,
      ...TEST_KEYS,
    }),
  );

  const orm = await initOrm({ databaseUrl: ownerDatabaseUrl, poolMax: 10, as: 'owner' });
  cleanups.push(() => orm.close());
  await migrate(orm);
  await provisionLogins(orm, loginsOf([databaseUrl, systemDatabaseUrl]));
  const serviceOrm = await initOrm({ databaseUrl, systemDatabaseUrl, poolMax: 20 });
  cleanups.push(() => serviceOrm.close());

  // With the cluster, TEMPORAL_TLS_* (set by startTestCluster) make these mTLS connections.
  const connection = await Connection.connect(temporalConnectionOptions(config));
  cleanups.push(() => connection.close());
  if (base.TEMPORAL_ADDRESS) await ensureSearchAttributes(connection, config.TEMPORAL_NAMESPACE);
  // Encrypted payloads with this run's key (TEST_KEYS), as the API and the worker write them.
  const temporal = new Client({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    dataConverter: payloadDataConverter(config),
  });

  const logger = createLogger(config.LOG_LEVEL);
  const workerConnection = await NativeConnection.connect(temporalConnectionOptions(config));
  const adapters = defaultAdapterRegistry({ temporal, config });
  const clock = workerClock();
  const workerDeps = {
    config,
    orm: serviceOrm,
    clock,
    logger,
    temporal,
    adapters,
    connection: workerConnection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue,
  };
  const worker = await createWorker(workerDeps);
  const running = worker.run();
  cleanups.push(async () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running;
    await workerConnection.close();
  });
  const webhookWorker = await createWebhookWorker(workerDeps);
  const webhooksRunning = webhookWorker.run();
  cleanups.push(async () => {
    if (webhookWorker.getState() === 'RUNNING') webhookWorker.shutdown();
    await webhooksRunning;
  });

  const deps = (overrides: Partial<AppDeps> = {}) =>
    buildDeps(config, { orm: serviceOrm, temporal, logger, onResponse: recordAnswer, ...overrides });
  current = {
    runId,
    config,
    orm,
    serviceOrm,
    temporal,
    databaseUrl,
    systemDatabaseUrl,
    ownerDatabaseUrl,
    databaseEnv,
    temporalAddress,
    temporalUiUrl,
    cluster,
    clusterPostgres,
    taskQueue,
    worker,
    adapters,
    workerClock: clock,
    deps,
    async startApi(overrides = {}) {
      const appDeps = await deps(overrides);
      const server: Server = await listen(appDeps, 0, '127.0.0.1');
      const metrics = appDeps.config.METRICS_ENABLED ? await listenMetrics(appDeps, 0, '127.0.0.1') : null;
      const { port } = server.address() as { port: number };
      const close = () =>
        new Promise<void>((resolve) => {
          metrics?.close();
          metrics?.closeAllConnections();
          server.close(() => resolve());
          server.closeAllConnections();
        });
      cleanups.push(close);
      const metricsUrl = metrics ? `http://127.0.0.1:${(metrics.address() as { port: number }).port}` : null;
      return { url: `http://127.0.0.1:${port}`, metricsUrl, deps: appDeps, close };
    },
  };
  return current;
}

export async function stopStack(): Promise<void> {
  while (cleanups.length > 0) {
    const cleanup = cleanups.pop()!;
    await cleanup().catch((err: unknown) => console.error('cleanup failed:', err));
  }
  current = null;
}

// Loading this module is what asks the root hooks (hooks.ts) for a stack; at the end of the run every
// answer the tests saw must match the API reference.
demandStack({
  start: startStack,
  async stop() {
    await stopStack();
    assertAnswersMatchContract();
  },
});
