import type { EntityManager } from '@mikro-orm/postgresql';

/** One statement, its rows typed by the caller; placeholders are `?`. */
export type Sql = <T>(query: string, params?: readonly unknown[]) => Promise<T[]>;

/** Runs statements on em's connection, inside em's transaction when it is in one. */
export const sqlOf =
  (em: EntityManager): Sql =>
  <T>(query: string, params: readonly unknown[] = []) =>
    em.getConnection().execute<T[]>(query, [...params], 'all', em.getTransactionContext());
