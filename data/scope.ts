import type { EntityManager } from '@mikro-orm/postgresql';
import { TENANT_FILTER } from '../db/entities/tenant.js';
import { looksLikeId } from '../domain/ids.js';
import { sqlOf, type Sql } from './sql.js';

/** Thrown when tenant data is asked for without a client id: a programming fault, never a 4xx. */
export class MissingTenant extends Error {
  constructor() {
    super('tenant data asked for without a client id');
  }
}

/**
 * Tenancy by construction (D1). Repository functions that touch tenant rows take a TenantScope, and a
 * scope exists only for one well-formed client id: every statement a repository writes filters by
 * `scope.clientId`, and the ORM's tenant filter is in force on `scope.em`. Nothing outside `data/`
 * sees a connection.
 */
export class TenantScope {
  readonly sql: Sql;

  private constructor(
    readonly clientId: string,
    readonly em: EntityManager,
  ) {
    em.setFilterParams(TENANT_FILTER, { clientId });
    this.sql = sqlOf(em);
  }

  /**
   * A scope on its own fork of em (its own identity map), for one client id. Inside a transaction
   * the fork writes through it, so a cross-tenant unit of work can hand one tenant's part on.
   */
  static of(em: EntityManager, clientId: string | undefined | null): TenantScope {
    if (!clientId || !looksLikeId('client', clientId)) throw new MissingTenant();
    return new TenantScope(clientId, em.fork({ keepTransactionContext: true }));
  }

  /** Runs fn in one database transaction; the scope it receives writes through it. */
  transaction<T>(fn: (tx: TenantScope) => Promise<T>): Promise<T> {
    return this.em.transactional((tx) => fn(new TenantScope(this.clientId, tx)));
  }
}

/**
 * Work that crosses tenants on purpose (reconcilers, operator commands, reference-data loads,
 * schema checks). Named so a reader of any call site sees that the statement is not one tenant's.
 * Entity queries through `em` pass `filters: { [TENANT_FILTER]: false }` explicitly.
 */
export class SystemScope {
  readonly sql: Sql;

  private constructor(readonly em: EntityManager) {
    this.sql = sqlOf(em);
  }

  static of(em: EntityManager): SystemScope {
    return new SystemScope(em.fork());
  }

  transaction<T>(fn: (tx: SystemScope) => Promise<T>): Promise<T> {
    return this.em.transactional((tx) => fn(new SystemScope(tx)));
  }
}
