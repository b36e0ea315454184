import { dropDatabase, ensureDatabase } from '../../db/databases.js';
import { initOrm, type Orm } from '../../db/orm.js';
import { stack } from './stack.js';

/**
 * A database of the test's own on the stack's server, connected as the owner (no migration run: the
 * test migrates as far as it needs), and the means to drop it in `after`.
 */
export async function ownDatabase(
  tag: string,
  poolMax = 2,
): Promise<{ orm: Orm; drop: () => Promise<void> }> {
  const name = `ghi_test_${stack().runId}_${tag}`;
  const orm = await initOrm({
    databaseUrl: await ensureDatabase(stack().ownerDatabaseUrl, name),
    poolMax,
    as: 'owner',
  });
  return {
    orm,
    drop: async () => {
      await orm.close();
      await dropDatabase(stack().ownerDatabaseUrl, name);
    },
  };
}
