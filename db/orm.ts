import { Migrator } from '@mikro-orm/migrations';
import { MikroORM, defineConfig, type Options } from '@mikro-orm/postgresql';
import { entities } from './entities/index.js';
import { migrationsList } from './migrations/index.js';
import { PostgresNamingStrategy } from './naming.js';
import { SERVICE_ROLE } from './roles.js';

export type Orm = MikroORM;

export interface OrmOptions {
  databaseUrl: string;
  poolMax?: number;
  debug?: boolean;
  /** false: start without a connection (a process that must come up while the database is down). */
  connect?: boolean;
  /**
   * Who the statements run as. `service` (the default; the API, the worker, operator commands):
   * every pooled connection switches to the service role (db/roles.ts), which owns nothing and is
   * held to row-level security. `owner`: the connecting user itself, for migrations and tests that
   * build fixtures across tenants; never for serving.
   */
  as?: 'service' | 'owner';
}

export function ormConfig({
  databaseUrl,
  poolMax = 10,
  debug = false,
  connect = true,
  as = 'service',
}: OrmOptions): Options {
  return defineConfig({
    clientUrl: databaseUrl,
    entities,
    namingStrategy: PostgresNamingStrategy,
    extensions: [Migrator],
    discovery: { warnWhenNoEntities: true },
    pool: {
      min: 0,
      max: poolMax,
      idleTimeoutMillis: 10_000,
      // Once per connection, not per statement. A superuser or the owner bypasses row-level security;
      // the service role does not.
      ...(as === 'service' ? { afterCreate: switchToServiceRole } : {}),
    },
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

type PgConnection = { query(sql: string, cb: (err: Error | null) => void): void };

function switchToServiceRole(
  conn: PgConnection,
  done: (err: Error | null, conn: PgConnection) => void,
): void {
  conn.query(`set role ${SERVICE_ROLE}`, (err) => done(err, conn));
}

/**
 * Migrates as the connecting user (the owner) on a connection of its own, then lets it go: the
 * service's own pool runs as the service role, which may not change the schema.
 */
export async function migrateDatabase(databaseUrl: string): Promise<void> {
  const orm = await initOrm({ databaseUrl, poolMax: 1, as: 'owner' });
  try {
    await migrate(orm);
  } finally {
    await orm.close();
  }
}

/**
 * Applies pending migrations on an owner's ORM (`as: 'owner'`); safe to run from several processes
 * at once (advisory lock).
 */
export async function migrate(orm: Orm): Promise<void> {
  if (orm.config.get('pool')?.afterCreate)
    throw new Error("migrate() needs an owner's ORM (initOrm({ as: 'owner' }))");
  const conn = orm.em.getConnection();
  await conn.execute('select pg_advisory_lock(727001)');
  try {
    await orm.getMigrator().up();
  } finally {
    await conn.execute('select pg_advisory_unlock(727001)');
  }
}
