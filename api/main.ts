import { apiConfig, loadConfig, ownerMigration } from '../config/index.js';
import { loginsOf, migrateDatabase } from '../db/orm.js';
import { listenMetrics } from './metrics-server.js';
import { buildDeps, listen } from './server.js';

/** Production entry point of the HTTP API; run any number of copies behind a load balancer. */
const config = apiConfig(loadConfig());
// With the owner's login (npm start; a deploy may instead migrate in a step of its own and keep the
// owner's password from the API): every copy may start at once, migrate() serialises on an advisory
// lock and skips applied migrations. The API's own pools then log in as the service's roles.
const migration = ownerMigration(config);
if (migration) await migrateDatabase(migration.ownerUrl, loginsOf(migration.loginUrls));
const deps = await buildDeps(config);
const server = await listen(deps);
deps.logger.info({ port: config.PORT }, 'api listening');
const metricsServer = config.METRICS_ENABLED ? await listenMetrics(deps) : null;
if (metricsServer)
  deps.logger.info({ host: config.METRICS_HOST, port: config.METRICS_PORT }, 'metrics listening');

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  deps.logger.info({ signal }, 'api stopping');
  await new Promise<void>((resolve) => server.close(() => resolve()));
  metricsServer?.close();
  await deps.temporal.connection.close();
  await deps.orm.close();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
