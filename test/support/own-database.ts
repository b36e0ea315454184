import { dropDatabase, ensureDatabase } from '../../db/databases.js';
import { initOrm, type Orm } from '../../db/orm.js';
import { stack } from './stack.js';

/** A statement on the database, its rows as plain objects. */
export type OwnSql = (query: string, params?: unknown[]) => Promise<any[]>;

/**
 * A database of the test's own on the stack's server, connected as the owner (no migration run: the
 * test migrates as far as it needs), a statement runner on it, and the means to drop it in `after`.
 */
export async function ownDatabase(
  tag: string,
  poolMax = 2,
): Promise<{ orm: Orm; sql: OwnSql; drop: () => Promise<void> }> {
  const name = `ghi_test_${stack().runId}_${tag}`;
  const orm = await initOrm({
    databaseUrl: await ensureDatabase(stack().ownerDatabaseUrl, name),
    poolMax,
    as: 'owner',
  });
  return {
    orm,
    sql: (query, params = []) => orm.em.getConnection().execute(query, params),
    drop: async () => {
      await orm.close();
      await dropDatabase(stack().ownerDatabaseUrl, name);
    },
  };
}
