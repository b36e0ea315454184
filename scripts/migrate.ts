import { ConfigError, loadConfig, ownerMigration } from '../config/index.js';
import { loginsOf, migrateDatabase } from '../db/orm.js';

/**
 * `npm run migrate`: the deploy's migration step (docker-compose runs it once before API and worker).
 * As the owner (DATABASE_OWNER_URL) it applies pending migrations, then gives the service's roles
 * the logins DATABASE_URL and DATABASE_SYSTEM_URL name (LOGIN, and their passwords). The API and the
 * worker then start without the owner's login. Safe to run again and from several places at once.
 */
try {
  const config = loadConfig();
  const migration = ownerMigration(config);
  if (!migration)
    throw new ConfigError(
      "Invalid configuration:\n  DATABASE_OWNER_URL: is required (the owner's login, for migrations)",
    );
  const logins = loginsOf(migration.loginUrls);
  await migrateDatabase(migration.ownerUrl, logins);
  console.log(`migrated; logins provisioned: ${logins.map((l) => l.role).join(', ') || 'none'}`);
} catch (err) {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
}
