import type { EntityManager } from '@mikro-orm/postgresql';
import { TENANT_FILTER } from '../db/entities/tenant.js';
import { systemFork } from '../db/orm.js';
import { looksLikeId } from '../domain/ids.js';
import { scopedMessage, scopedSql, withSettings, type RowAccess } from './row-security.js';
import type { Sql, SqlMessage } from './sql.js';

/** Thrown when tenant data is asked for without a client id: a programming fault, never a 4xx. */
export class MissingTenant extends Error {
  constructor() {
    super('tenant data asked for without a client id');
  }
}

/**
 * Tenancy by construction (D1), twice over. In the code: repository functions that touch tenant
 * rows take a TenantScope, and a scope exists only for one well-formed client id: every statement a
 * repository writes filters by `scope.clientId`, and the ORM's tenant filter is in force on
 * `scope.em`. In the database: every statement of the scope runs in a transaction whose
 * `app.client_id` is the scope's client, so PostgreSQL's row-level security (migration 0009) hides
 * and refuses any other client's rows even if a statement forgot its filter. Nothing outside
 * `data/` runs a statement (the API's metrics read the pool's sizes, never a connection).
 *
 * Repositories use `scope.sql` for statements (`scope.message` for several in one round trip) and
 * `scope.entities(em => ...)` for the entity API; entity work straight on `scope.em` outside a
 * scope's transaction runs without the setting and sees no tenant rows (fails closed).
 */
export class TenantScope {
  readonly sql: Sql;
  /** Several statements in one round trip (SqlMessage). */
  readonly message: SqlMessage;
  private readonly access: RowAccess;

  private constructor(
    readonly clientId: string,
    readonly em: EntityManager,
  ) {
    em.setFilterParams(TENANT_FILTER, { clientId });
    this.access = { clientId };
    this.sql = scopedSql(em, this.access);
    this.message = scopedMessage(em, this.access);
  }

  /**
   * A scope on its own fork of em (its own identity map), for one client id. Inside a transaction
   * the fork writes through it, so a cross-tenant unit of work can hand one tenant's part on (its
   * statements switch the transaction's setting to this client while they run).
   */
  static of(em: EntityManager, clientId: string | undefined | null): TenantScope {
    if (!clientId || !looksLikeId('client', clientId)) throw new MissingTenant();
    return new TenantScope(clientId, em.fork({ keepTransactionContext: true }));
  }

  /**
   * Runs fn in one database transaction; the scope it receives writes through it. Its first
   * statement tells the transaction this client (data/row-security.ts).
   */
  transaction<T>(fn: (tx: TenantScope) => Promise<T>): Promise<T> {
    return this.em.transactional((tx) => fn(new TenantScope(this.clientId, tx)));
  }

  /** Entity-API work under this client's setting (in a transaction of its own when not in one). */
  entities<T>(fn: (em: EntityManager) => Promise<T>): Promise<T> {
    return withSettings(this.em, this.access, fn);
  }
}

/**
 * Work that crosses tenants on purpose (reconcilers, operator commands, reference-data loads,
 * schema checks). Named so a reader of any call site sees that the statement is not one tenant's.
 * Entity queries through `em` pass `filters: { [TENANT_FILTER]: false }` explicitly.
 *
 * In the database its statements run on the system role's own pool (db/orm.ts systemFork), in
 * transactions that say `app.system = on`: the row-level security policies let that role, and only
 * that role, through for every client (migration 0027). The service role's pool, which serves every
 * tenant's requests, cannot reach other clients' rows whatever its statements set.
 */
export class SystemScope {
  readonly sql: Sql;

  private constructor(readonly em: EntityManager) {
    this.sql = scopedSql(em, 'system');
  }

  /** A scope on a fork of the system role's pool belonging to `em`'s ORM (never em's own transaction). */
  static of(em: EntityManager): SystemScope {
    return new SystemScope(systemFork(em));
  }

  /** Runs fn in one database transaction with the system setting; TenantScopes made on `tx.em` join it. */
  transaction<T>(fn: (tx: SystemScope) => Promise<T>): Promise<T> {
    return this.em.transactional((tx) => fn(new SystemScope(tx)));
  }

  /** Entity-API work with the system setting (in a transaction of its own when not in one). */
  entities<T>(fn: (em: EntityManager) => Promise<T>): Promise<T> {
    return withSettings(this.em, 'system', fn);
  }
}
