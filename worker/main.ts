import { loadConfig } from '../config/index.js';
import { createLogger } from '../api/logger.js';
import { requireDatabaseUrl } from '../api/server.js';
import { initOrm } from '../db/orm.js';
import { systemClock } from '../domain/clock.js';
import { connectWorkerConnection } from '../infra/temporal-client.js';
import { createWorker } from './create-worker.js';

/** Production entry point of the Temporal worker; scale by running more copies. */
const config = loadConfig();
const logger = createLogger(config.LOG_LEVEL);
const orm = await initOrm({ databaseUrl: requireDatabaseUrl(config), poolMax: config.DATABASE_POOL_MAX });
const connection = await connectWorkerConnection(config);
const worker = await createWorker({
  config,
  orm,
  clock: systemClock,
  logger,
  connection,
  namespace: config.TEMPORAL_NAMESPACE,
  taskQueue: config.TEMPORAL_TASK_QUEUE,
});
logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE }, 'worker running');
// The SDK installs SIGINT/SIGTERM handlers that drain in-flight tasks before run() resolves.
await worker.run();
await connection.close();
await orm.close();
logger.info('worker stopped');
