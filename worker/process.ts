import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { loadConfig, webhookSecretKeys, requireDatabaseUrls } from '../config/index.js';
import { createLogger } from '../infra/logger.js';
import { initOrm } from '../db/orm.js';
import { systemClock } from '../domain/clock.js';
import { connectWorkerConnection, createTemporalClient } from '../infra/temporal-client.js';
import { defaultAdapterRegistry } from '../adapters/registry.js';
import { ensurePeriodicSchedules } from '../usecases/schedules.js';
import { syncInsurerCutOffSchedules } from '../usecases/insurer-exchange/schedules.js';
import { syncRosterSchedules } from '../usecases/reconciliation/roster-schedules.js';
import { createWorker } from './create-worker.js';
import { installWorkerRuntime } from './telemetry.js';
import { createWebhookWorker } from './webhook-worker.js';

export interface WorkerProcessOptions {
  /** Extra activity interceptors after the service's own (the crash tests inject faults here). */
  activityInterceptors?: ActivityInterceptorsFactory[];
}

/** A worker process: both workers, the periodic Schedules, until SIGINT/SIGTERM drains it. */
export async function runWorkerProcess(options: WorkerProcessOptions = {}): Promise<void> {
  const config = loadConfig();
  // Deliveries open sealed signing secrets: without the keys the worker must not start at all.
  webhookSecretKeys(config);
  const logger = createLogger(config.LOG_LEVEL);
  installWorkerRuntime(config, logger);
  const orm = await initOrm({ ...requireDatabaseUrls(config), poolMax: config.DATABASE_POOL_MAX });
  const connection = await connectWorkerConnection(config);
  const temporal = createTemporalClient(config);
  const workerDeps = {
    config,
    orm,
    clock: systemClock,
    logger,
    temporal,
    adapters: defaultAdapterRegistry({ temporal, config }),
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    activityInterceptors: options.activityInterceptors,
  };
  const worker = await createWorker(workerDeps);
  const webhookWorker = await createWebhookWorker(workerDeps);
  // Every worker creates or updates the same three Schedules: one each per namespace.
  await ensurePeriodicSchedules(temporal, config.TEMPORAL_TASK_QUEUE);
  // D14: one cut-off Schedule per file insurer, from the reference data. A failure here (a stored
  // setting that no longer parses) is logged, not fatal: every other endorsement still runs.
  await syncInsurerCutOffSchedules(temporal, orm.em.fork(), config.TEMPORAL_TASK_QUEUE).then(
    (sync) =>
      logger.info(
        { ensured: sync.ensured.length, removed: sync.removed.length },
        'insurer cut-off schedules',
      ),
    (err: unknown) => logger.error({ err }, 'insurer cut-off schedules not synced'),
  );
  // Monthly roster reconciliations of the policies whose api insurer publishes rosters; as above.
  await syncRosterSchedules(temporal, orm.em.fork(), config.TEMPORAL_TASK_QUEUE).then(
    (sync) => logger.info({ ensured: sync.ensured.length, removed: sync.removed.length }, 'roster schedules'),
    (err: unknown) => logger.error({ err }, 'roster schedules not synced'),
  );
  logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE }, 'worker running');
  // The SDK installs SIGINT/SIGTERM handlers that drain in-flight tasks before run() resolves.
  await Promise.all([worker.run(), webhookWorker.run()]);
  await connection.close();
  await temporal.connection.close();
  await orm.close();
  logger.info('worker stopped');
}
