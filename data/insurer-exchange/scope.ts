import type { EntityManager } from '@mikro-orm/postgresql';
import { systemFork } from '../../db/orm.js';
import { looksLikeId } from '../../domain/ids.js';
import { scopedSql } from '../row-security.js';
import type { Sql } from '../sql.js';

/**
 * What an insurer principal may see (D14), by construction: a scope exists only for one
 * well-formed insurer id, and every repository function taking it filters by `scope.insurerId`
 * (endorsements are the insurer's through their policy's insurer_id). It crosses tenants on
 * purpose (one insurer serves endorsements of the clients whose policies name it), so it is not a
 * TenantScope; it is narrower than a SystemScope, which would see every insurer's rows.
 *
 * In the database its statements run on the system role's pool with the system setting (row-level
 * security lets every client's rows through to that role alone): an insurer's endorsements span
 * tenants, and its narrowing is the insurer filter every statement of this scope writes.
 */
export class InsurerScope {
  readonly sql: Sql;

  private constructor(
    readonly insurerId: string,
    readonly em: EntityManager,
  ) {
    this.sql = scopedSql(em, 'system');
  }

  static of(em: EntityManager, insurerId: string): InsurerScope {
    if (!looksLikeId('insurer', insurerId)) throw new Error('insurer scope without an insurer id');
    return new InsurerScope(insurerId, systemFork(em));
  }
}
