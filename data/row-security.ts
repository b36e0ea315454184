import type { EntityManager } from '@mikro-orm/postgresql';
import { runsPrepared } from '../db/prepared.js';
import { SYSTEM_SETTING, TENANT_SETTING } from '../db/roles.js';
import type { Sql, SqlMessage, Statement } from './sql.js';

/**
 * Whose rows a statement may see under the row-level security policies (migration 0009): one
 * client's, or every client's for work that crosses tenants on purpose.
 */
export type RowAccess = { clientId: string } | 'system';

type Transaction = NonNullable<ReturnType<EntityManager['getTransactionContext']>>;

const keyOf = (access: RowAccess): string => (access === 'system' ? ' system' : access.clientId);

/**
 * What each open transaction was last told (set_config(..., true) lasts until the transaction
 * ends, and so does the transaction object this is keyed by). A statement tells again only when
 * its scope differs from the last teller (a TenantScope inside a SystemScope's transaction). A
 * savepoint is its own transaction object and tells again.
 */
const told = new WeakMap<Transaction, string>();

const SETTINGS = `select set_config('${TENANT_SETTING}', ?, true), set_config('${SYSTEM_SETTING}', ?, true)`;

/** The settings statement for `access`, its values inlined the way MikroORM inlines every statement's. */
function settingsSql(em: EntityManager, access: RowAccess): string {
  const values = access === 'system' ? ['', 'on'] : [access.clientId, 'off'];
  return em.getPlatform().formatQuery(SETTINGS, values);
}

/** Tells an open transaction `access` (one round trip) unless it was told already. */
export async function tell(em: EntityManager, trx: Transaction, access: RowAccess): Promise<void> {
  const key = keyOf(access);
  if (told.get(trx) === key) return;
  await em.getConnection().execute(settingsSql(em, access), [], 'all', trx);
  told.set(trx, key);
}

/**
 * Runs statements with the scope's settings in force, at no extra round trip. MikroORM sends every
 * statement with its values inlined (Platform.formatQuery; simple query protocol), so the settings
 * statement rides in front of it in the same message: `select set_config(...); <statement>`.
 * PostgreSQL runs a multi-statement message as one transaction (an implicit one outside BEGIN), so
 * the transaction-local settings cover the statement and end with it, and a connection goes back
 * to the pool without them: its next borrower, of any tenant, cannot inherit them. Inside an
 * explicit transaction the first statement of the scope carries them and the rest go alone.
 */
export function scopedSql(em: EntityManager, access: RowAccess): Sql {
  const message = scopedMessage(em, access);
  return async <T>(query: string | Statement, params: readonly unknown[] = []): Promise<T[]> => {
    const [rows] = await message([typeof query === 'string' ? { query, params } : query]);
    return rows as T[];
  };
}

/**
 * Several statements in one message (SqlMessage), with the scope's settings in front as for one
 * statement: outside a transaction they, the settings and the statements are one implicit
 * transaction, a failure in any statement undoing the message whole.
 */
export function scopedMessage(em: EntityManager, access: RowAccess): SqlMessage {
  const key = keyOf(access);
  return async (statements) => {
    const connection = em.getConnection();
    const trx = em.getTransactionContext<Transaction>();
    const texts = statements.map((s) => statementText(em, s));
    const tell = !(trx && told.get(trx) === key);
    if (tell) texts.unshift(settingsSql(em, access));
    const results = await connection.execute<unknown[]>(texts.join(';\n'), [], 'all', trx);
    if (trx) told.set(trx, key);
    // One result per statement (pg answers a one-statement message with that statement's rows alone).
    const answers = (texts.length === 1 ? [results] : results) as unknown[][];
    return tell ? answers.slice(1) : answers;
  };
}

/**
 * A statement's text in a message: `EXECUTE name(values)` for one prepared on the em's pool
 * (data/sql.ts `prepared`), else its own text; values inlined as MikroORM inlines them.
 */
function statementText(em: EntityManager, s: Statement): string {
  const platform = em.getPlatform();
  if (!s.prepared || !runsPrepared(em.config, s.prepared))
    return platform.formatQuery(s.query, [...s.params]);
  if (s.params.length === 0) return `execute ${s.prepared}`;
  return `execute ${s.prepared}(${platform.formatQuery(s.params.map(() => '?').join(', '), [...s.params])})`;
}

/**
 * Entity-API work (find, insert, flush) under the scope's settings. The entity API builds and sends
 * its own statements, so outside a transaction this opens one and tells it first (begin, settings,
 * the work, commit); inside one it tells the transaction when needed.
 */
export async function withSettings<T>(
  em: EntityManager,
  access: RowAccess,
  fn: (em: EntityManager) => Promise<T>,
): Promise<T> {
  const current = em.getTransactionContext<Transaction>();
  if (current) {
    await tell(em, current, access);
    return fn(em);
  }
  return em.transactional(async (tx) => {
    await tell(tx, tx.getTransactionContext<Transaction>()!, access);
    return fn(tx);
  });
}
