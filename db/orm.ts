import { randomBytes, createHash, createHmac, pbkdf2Sync } from 'node:crypto';
import { Migrator } from '@mikro-orm/migrations';
import { MikroORM, defineConfig, type EntityManager, type Options } from '@mikro-orm/postgresql';
import { entities } from './entities/index.js';
import { migrationsList } from './migrations/index.js';
import { PostgresNamingStrategy } from './naming.js';
import { markPreparing, prepareOnConnect } from './prepared.js';
import { LOGIN_ROLES, SERVICE_ROLE, SYSTEM_ROLE, type LoginRole } from './roles.js';

export type Orm = MikroORM;

export type OrmOptions = {
  poolMax?: number;
  debug?: boolean;
  /** false: start without a connection (a process that must come up while the database is down). */
  connect?: boolean;
} & (
  | {
      /**
       * The service (the default; the API, the worker, operator commands): two pools, each logged in
       * as its own role. `databaseUrl` logs in as the service role (db/roles.ts SERVICE_ROLE), held
       * to row-level security, for everything but SystemScope; `systemDatabaseUrl` as the system
       * role, for SystemScope alone (data/scope.ts finds it through systemFork).
       */
      as?: 'service';
      databaseUrl: string;
      systemDatabaseUrl: string;
    }
  | {
      /**
       * The owner: the connecting user itself, for migrations and tests that build fixtures across
       * tenants; never for serving. It owns the tables and is not held to row-level security.
       */
      as: 'owner';
      databaseUrl: string;
    }
);

/** The service ORM's system-role companion, keyed by the configuration every fork of its em shares. */
const systemOrms = new WeakMap<object, Orm>();

export function ormConfig({
  databaseUrl,
  poolMax = 10,
  debug = false,
  connect = true,
  prepare = false,
}: {
  databaseUrl: string;
  poolMax?: number;
  debug?: boolean;
  connect?: boolean;
  /** Prepare the registered statements on each new connection (db/prepared.ts): the service's pools. */
  prepare?: boolean;
}): Options {
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
      ...(prepare ? { afterCreate: prepareOnConnect } : {}),
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

/**
 * The one place a process's database connections are built. The service's are two ORMs whose pools
 * log in as their roles (no `SET ROLE` anywhere, so no statement can `RESET ROLE` to someone else);
 * closing the service ORM closes its system companion. Each pool is checked once at start-up
 * (assertHeldToRowSecurity), so a deployment that logs the service in as the owner or a superuser
 * stops with that said rather than serving without row-level security.
 */
export async function initOrm(options: OrmOptions): Promise<Orm> {
  const { poolMax, debug, connect = true } = options;
  const prepare = options.as !== 'owner';
  const orm = await MikroORM.init(
    ormConfig({ databaseUrl: options.databaseUrl, poolMax, debug, connect, prepare }),
  );
  if (options.as === 'owner') return orm;
  markPreparing(orm.config);
  let system: Orm;
  try {
    system = await MikroORM.init(
      ormConfig({ databaseUrl: options.systemDatabaseUrl, poolMax, debug, connect, prepare }),
    );
    markPreparing(system.config);
  } catch (err) {
    await orm.close();
    throw err;
  }
  systemOrms.set(orm.config, system);
  const closeService = orm.close.bind(orm);
  orm.close = async (force?: boolean) => {
    await closeService(force);
    await system.close(force);
  };
  if (connect) {
    try {
      await assertHeldToRowSecurity(orm, 'DATABASE_URL', SERVICE_ROLE);
      await assertHeldToRowSecurity(system, 'DATABASE_SYSTEM_URL', SYSTEM_ROLE);
    } catch (err) {
      await orm.close();
      throw err;
    }
  }
  return orm;
}

/**
 * A fork on the system role's pool for SystemScope (data/scope.ts): the service ORM's companion, or
 * `em` itself on an owner's ORM (migrations, test fixtures), which row-level security does not hold.
 */
export function systemFork(em: EntityManager): EntityManager {
  return (systemOrms.get(em.config)?.em ?? em).fork();
}

/**
 * What a login must not be for serving: a superuser or a BYPASSRLS role (row-level security does not
 * hold it), the owner of a table or a member of one (it could drop the policies or `SET ROLE` to
 * the owner), or the service role a member of the system role (it could reach every client).
 */
async function assertHeldToRowSecurity(orm: Orm, variable: string, expected: LoginRole): Promise<void> {
  const [me] = await orm.em
    .getConnection()
    .execute<{ login: string; bypasses: boolean; owns: boolean; system: boolean }[]>(
      `select r.rolname as login, r.rolsuper or r.rolbypassrls as bypasses,
            exists (select 1 from pg_class c where c.relnamespace = current_schema()::regnamespace
                     and pg_has_role(r.oid, c.relowner, 'member')) as owns,
            pg_has_role(r.oid, '${SYSTEM_ROLE}', 'member') as system
       from pg_roles r where r.oid = (select oid from pg_roles where rolname = session_user)`,
    );
  const problem = !me
    ? 'a login the database does not list'
    : me.bypasses
      ? 'a superuser or BYPASSRLS role'
      : me.owns
        ? 'the owner of the tables (or a member of it)'
        : expected === SERVICE_ROLE && me.system
          ? `a member of ${SYSTEM_ROLE}`
          : expected === SYSTEM_ROLE && !me.system
            ? `neither ${SYSTEM_ROLE} nor a member of it`
            : null;
  if (problem) {
    throw new Error(
      `${variable} logs in as ${me?.login ?? '?'}, ${problem}: it must log in as ${expected} ` +
        '(docs/security/database-roles.md); the owner is DATABASE_OWNER_URL, for migrations only',
    );
  }
}

/** A role's login as the owner provisions it: its password, or none where the server trusts the host. */
export interface RoleLogin {
  role: LoginRole;
  password?: string;
}

/** The logins named by the service's URLs (their user, when it is one of the roles, and password). */
export function loginsOf(urls: string[]): RoleLogin[] {
  return urls.flatMap((raw) => {
    const url = new URL(raw);
    const role = LOGIN_ROLES.find((r) => r === decodeURIComponent(url.username));
    const password = decodeURIComponent(url.password);
    return role ? [{ role, ...(password ? { password } : {}) }] : [];
  });
}

/**
 * Migrates as the owner on a connection of its own, then gives the service's roles their logins
 * (provisionLogins), then lets it go: the service's own pools log in as those roles, which may not
 * change the schema.
 */
export async function migrateDatabase(ownerUrl: string, logins: RoleLogin[] = []): Promise<void> {
  const orm = await initOrm({ databaseUrl: ownerUrl, poolMax: 1, as: 'owner' });
  try {
    await migrate(orm);
    await provisionLogins(orm, logins);
  } finally {
    await orm.close();
  }
}

/**
 * Applies pending migrations on an owner's ORM (`as: 'owner'`); safe to run from several processes
 * at once (advisory lock).
 */
export async function migrate(orm: Orm): Promise<void> {
  if (systemOrms.has(orm.config))
    throw new Error("migrate() needs an owner's ORM (initOrm({ as: 'owner' }))");
  const conn = orm.em.getConnection();
  await conn.execute('select pg_advisory_lock(727001)');
  try {
    await orm.getMigrator().up();
  } finally {
    await conn.execute('select pg_advisory_unlock(727001)');
  }
}

/**
 * LOGIN, and the password when one is given, for each role (after the migrations that create them).
 * Idempotent: a login already as asked is left alone (where the owner may read pg_authid), else set
 * again. Concurrent runs on one cluster (roles are cluster-wide, so one database's advisory lock
 * does not serialise them) must agree on the passwords, which the deploy's variables and the tests'
 * derived passwords do; PostgreSQL refuses the loser of two simultaneous ALTER ROLEs ("tuple
 * concurrently updated"), which tries again. The password travels as a SCRAM-SHA-256 verifier,
 * never in clear, so a server that logs statements does not log it.
 */
export async function provisionLogins(orm: Orm, logins: RoleLogin[]): Promise<void> {
  const conn = orm.em.getConnection();
  for (const { role, password } of logins) {
    const current = await conn
      .execute<{ rolcanlogin: boolean; rolpassword: string | null }[]>(
        'select rolcanlogin, rolpassword from pg_authid where rolname = ?',
        [role],
      )
      .catch(() => []);
    const login = current[0];
    if (login?.rolcanlogin && (password === undefined || scramMatches(login.rolpassword, password))) continue;
    const [row] = await conn.execute<{ statement: string }[]>(
      password === undefined
        ? "select format('alter role %I with login', ?::text) as statement"
        : "select format('alter role %I with login password %L', ?::text, ?::text) as statement",
      password === undefined ? [role] : [role, scramVerifier(password)],
    );
    for (let attempt = 1; ; attempt++) {
      try {
        await conn.execute(row!.statement);
        break;
      } catch (err) {
        if (attempt >= 5 || !/tuple concurrently updated/.test(String(err))) throw err;
      }
    }
  }
}

/** PostgreSQL's stored form of a SCRAM-SHA-256 password (RFC 5802/7677; ASCII passwords need no SASLprep). */
export function scramVerifier(password: string, iterations = 4096, salt = randomBytes(16)): string {
  const salted = pbkdf2Sync(password, salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

/** Whether a stored verifier is `password`'s (recomputed with its own iterations and salt). */
function scramMatches(stored: string | null, password: string): boolean {
  const parts = /^SCRAM-SHA-256\$(\d+):([^$]+)\$/.exec(stored ?? '');
  if (!parts) return false;
  return scramVerifier(password, Number(parts[1]), Buffer.from(parts[2]!, 'base64')) === stored;
}
