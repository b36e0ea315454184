import type { Config } from '../config/index.js';
import type { Orm } from '../db/orm.js';
import type { Clock } from '../domain/clock.js';
import type { Logger } from '../api/logger.js';

export interface ActivityDeps {
  config: Config;
  orm: Orm;
  clock: Clock;
  logger: Logger;
}

/** Builds every activity from explicit dependencies (no globals), as the worker registers them. */
export function createActivities(deps: ActivityDeps) {
  return {
    async ping(name: string): Promise<string> {
      const rows = await deps.orm.em.getConnection().execute<{ ok: number }[]>('select 1 as ok');
      return `activity:${name}:${rows[0]?.ok === 1 ? 'db' : 'no-db'}`;
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;
