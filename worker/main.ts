import { loadConfig, webhookSecretKeys, requireDatabaseUrl } from '../config/index.js';
import { createLogger } from '../infra/logger.js';
import { initOrm } from '../db/orm.js';
import { systemClock } from '../domain/clock.js';
import { connectWorkerConnection, createTemporalClient } from '../infra/temporal-client.js';
import { defaultAdapterRegistry } from '../adapters/registry.js';
import { ensureEndorsementReconciler } from '../usecases/endorsements.js';
import { ensureWebhookSweeper } from '../domain/webhook-workflow.js';
import { ensureGrantReconciler } from '../usecases/grants.js';
import { createWorker } from './create-worker.js';
import { installWorkerRuntime } from './telemetry.js';
import { createWebhookWorker } from './webhook-worker.js';

/** Production entry point of the Temporal worker; scale by running more copies. */
const config = loadConfig();
// Deliveries open sealed signing secrets: without the keys the worker must not start at all.
webhookSecretKeys(config);
const logger = createLogger(config.LOG_LEVEL);
installWorkerRuntime(config, logger);
const orm = await initOrm({ databaseUrl: requireDatabaseUrl(config), poolMax: config.DATABASE_POOL_MAX });
const connection = await connectWorkerConnection(config);
const temporal = createTemporalClient(config);
// Crash tests only: exit right after the named activity's commit (see activities/endorsement.ts).
const exitAfterCommit = config.NODE_ENV === 'test' ? process.env.TEST_EXIT_AFTER_COMMIT : undefined;
const workerDeps = {
  config,
  orm,
  clock: systemClock,
  logger,
  temporal,
  adapters: defaultAdapterRegistry({ temporal, config }),
  ...(exitAfterCommit ? { faults: { exitAfterCommit } } : {}),
  connection,
  namespace: config.TEMPORAL_NAMESPACE,
  taskQueue: config.TEMPORAL_TASK_QUEUE,
};
const worker = await createWorker(workerDeps);
const webhookWorker = await createWebhookWorker(workerDeps);
await ensureEndorsementReconciler(temporal, config.TEMPORAL_TASK_QUEUE);
await ensureWebhookSweeper(temporal, config.TEMPORAL_TASK_QUEUE);
await ensureGrantReconciler(temporal, config.TEMPORAL_TASK_QUEUE);
logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE }, 'worker running');
// The SDK installs SIGINT/SIGTERM handlers that drain in-flight tasks before run() resolves.
await Promise.all([worker.run(), webhookWorker.run()]);
await connection.close();
await temporal.connection.close();
await orm.close();
logger.info('worker stopped');
