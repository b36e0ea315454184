import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { loadConfig } from '../config/index.js';
import { temporalConnectionOptions } from '../infra/temporal-client.js';
import { ensureSearchAttributes } from '../infra/temporal.js';
import { SEARCH_ATTRIBUTES } from '../workflows/search-attributes.js';

/**
 * `npm run temporal:setup`: registers the service's search attributes (workflows/search-attributes.ts)
 * on TEMPORAL_NAMESPACE of the Temporal at TEMPORAL_ADDRESS, with the same TEMPORAL_TLS_* as API and
 * worker; attributes already there are kept. docker-compose runs it once before API and worker start.
 * Waits up to 2 minutes for the frontend (a cluster still starting).
 */
const config = loadConfig();
const deadline = Date.now() + 120_000;
for (;;) {
  try {
    const connection = await Connection.connect({
      ...temporalConnectionOptions(config),
      connectTimeout: 5_000,
    });
    try {
      await ensureSearchAttributes(connection, config.TEMPORAL_NAMESPACE);
    } finally {
      await connection.close();
    }
    break;
  } catch (err) {
    if (Date.now() > deadline) {
      console.error(`temporal setup failed: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    }
    await sleep(2_000);
  }
}
console.log(
  `namespace ${config.TEMPORAL_NAMESPACE}: ${SEARCH_ATTRIBUTES.length} search attributes registered (${SEARCH_ATTRIBUTES.map((a) => a.name).join(', ')})`,
);
