import type { Client as TemporalClient } from '@temporalio/client';
import type { AdapterRegistry } from '../adapters/registry.js';
import type { Config } from '../config/index.js';
import type { Orm } from '../db/orm.js';
import type { Clock } from '../domain/clock.js';
import type { Logger } from '../infra/logger.js';

/** What every activity is built from (activities/index.ts createActivities), passed in explicitly. */
export interface ActivityDeps {
  config: Config;
  orm: Orm;
  clock: Clock;
  logger: Logger;
  /** For activities that start workflows (reconciler) and for adapters that signal. */
  temporal: TemporalClient;
  /** Insurer adapters by the insurer's `adapter` column (D8). */
  adapters: AdapterRegistry;
}
