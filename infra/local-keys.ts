import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { LOGIN_ROLES, SERVICE_ROLE, SYSTEM_ROLE, loginUrl, type LoginRole } from '../db/roles.js';

export interface LocalKeys {
  JWT_SIGNING_KEYS: string;
  LINK_SIGNING_KEY: string;
  WEBHOOK_SECRET_KEYS: string;
  PAYLOAD_ENCRYPTION_KEYS: string;
  CODEC_SERVER_TOKEN: string;
}

/** Fresh random keys in the form each variable takes (also used by the tests and the benchmark). */
export const newLocalKeys = (label = 'local'): LocalKeys => ({
  JWT_SIGNING_KEYS: `${label}-${randomBytes(3).toString('hex')}:${randomBytes(32).toString('hex')}`,
  LINK_SIGNING_KEY: randomBytes(32).toString('hex'),
  WEBHOOK_SECRET_KEYS: `${label}-${randomBytes(3).toString('hex')}:${randomBytes(32).toString('hex')}`,
  PAYLOAD_ENCRYPTION_KEYS: `${label}-${randomBytes(3).toString('hex')}:${randomBytes(32).toString('hex')}`,
  CODEC_SERVER_TOKEN: randomBytes(24).toString('base64url'),
});

/**
 * Keys of the local all-in-one (`npm start`): random, made on the first start and kept in
 * DATA_DIR (mode 0600) so tokens and links survive a restart. Keys set in the environment win. The
 * source holds no key at all, so a stray `npm run api` can never sign with a published one.
 */
export async function localSigningKeys(dataDir: string, env: NodeJS.ProcessEnv): Promise<LocalKeys> {
  const made = newLocalKeys();
  const stored = storedLocalKeys(dataDir);
  const keys = { ...made, ...stored };
  if (Object.keys(made).some((name) => !(name in stored))) {
    await fs.promises.writeFile(localKeysFile(dataDir), JSON.stringify(keys), { mode: 0o600 });
  }
  return {
    JWT_SIGNING_KEYS: env.JWT_SIGNING_KEYS || keys.JWT_SIGNING_KEYS,
    LINK_SIGNING_KEY: env.LINK_SIGNING_KEY || keys.LINK_SIGNING_KEY,
    WEBHOOK_SECRET_KEYS: env.WEBHOOK_SECRET_KEYS || keys.WEBHOOK_SECRET_KEYS,
    // An environment with the older single key keeps it (it decrypts what that key wrote).
    PAYLOAD_ENCRYPTION_KEYS:
      env.PAYLOAD_ENCRYPTION_KEYS || (env.PAYLOAD_ENCRYPTION_KEY ? '' : keys.PAYLOAD_ENCRYPTION_KEYS),
    CODEC_SERVER_TOKEN: env.CODEC_SERVER_TOKEN || keys.CODEC_SERVER_TOKEN,
  };
}

export const localKeysFile = (dataDir: string) => path.join(dataDir, 'local-keys.json');

/** The keys `npm start` keeps in DATA_DIR (none before its first start); operator commands read them too. */
export function storedLocalKeys(dataDir: string): Partial<LocalKeys> {
  try {
    return JSON.parse(fs.readFileSync(localKeysFile(dataDir), 'utf8')) as Partial<LocalKeys>;
  } catch {
    return {};
  }
}

/** The stored form of the local roles' passwords, beside the keys in the same file. */
const passwordKey = (role: LoginRole) => `${role.toUpperCase()}_DB_PASSWORD`;

/**
 * The local all-in-one's database logins on the embedded server of `ownerUrl`: the owner's (the
 * server's superuser, for migrations) and the service's two roles', with random passwords made on
 * the first start and kept in DATA_DIR's keys file (mode 0600) like the keys. The owner provisions
 * them on every start (db/orm.ts provisionLogins), so the file and the server always agree.
 */
export async function localDatabaseLogins(
  dataDir: string,
  ownerUrl: string,
): Promise<{ DATABASE_URL: string; DATABASE_SYSTEM_URL: string; DATABASE_OWNER_URL: string }> {
  const stored = storedLocalKeys(dataDir) as Record<string, string | undefined>;
  const passwords = Object.fromEntries(
    LOGIN_ROLES.map((role) => [role, stored[passwordKey(role)] ?? randomBytes(24).toString('hex')]),
  ) as Record<LoginRole, string>;
  if (LOGIN_ROLES.some((role) => !stored[passwordKey(role)])) {
    const merged = {
      ...stored,
      ...Object.fromEntries(LOGIN_ROLES.map((r) => [passwordKey(r), passwords[r]])),
    };
    await fs.promises.writeFile(localKeysFile(dataDir), JSON.stringify(merged), { mode: 0o600 });
  }
  return {
    DATABASE_URL: loginUrl(ownerUrl, SERVICE_ROLE, passwords[SERVICE_ROLE]),
    DATABASE_SYSTEM_URL: loginUrl(ownerUrl, SYSTEM_ROLE, passwords[SYSTEM_ROLE]),
    DATABASE_OWNER_URL: ownerUrl,
  };
}
