import { Migrator } from '@mikro-orm/migrations';
import { MikroORM, defineConfig, type Options } from '@mikro-orm/postgresql';
import { entities } from './entities/index.js';
import { migrationsList } from './migrations/index.js';
import { PostgresNamingStrategy } from './naming.js';

export type Orm = MikroORM;

export interface OrmOptions {
  databaseUrl: string;
  poolMax?: number;
  debug?: boolean;
  /** false: start without a connection (a process that must come up while the database is down). */
  connect?: boolean;
}

export function ormConfig({ databaseUrl, poolMax = 10, debug = false, connect = true }: OrmOptions): Options {
  return defineConfig({
    clientUrl: databaseUrl,
    entities,
    namingStrategy: PostgresNamingStrategy,
    extensions: [Migrator],
    discovery: { warnWhenNoEntities: true },
    pool: { min: 0, max: poolMax, idleTimeoutMillis: 10_000 },
    driverOptions: { connection: { connectionTimeoutMillis: 5_000, statement_timeout: 30_000 } },
    migrations: { migrationsList, transactional: true, allOrNothing: true, snapshot: false, silent: true },
    // Reads never need the identity map's change tracking across requests; each request forks.
    allowGlobalContext: false,
    forceUtcTimezone: true,
    debug,
    connect,
  });
}

export async function initOrm(options: OrmOptions): Promise<Orm> {
  return MikroORM.init(ormConfig(options));
}

/** Applies pending migrations; safe to run from several processes at once (advisory lock). */
export async function migrate(orm: Orm): Promise<void> {
  const conn = orm.em.getConnection();
  await conn.execute('select pg_advisory_lock(727001)');
  try {
    await orm.getMigrator().up();
  } finally {
    await conn.execute('select pg_advisory_unlock(727001)');
  }
}
