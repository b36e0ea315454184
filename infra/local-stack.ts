import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig, type Config } from '../config/index.js';
import { storedLocalKeys, type LocalKeys } from './local-keys.js';

/** What `npm start` publishes in DATA_DIR once its stack is up, for operator commands in another terminal. */
export interface LocalStackState {
  /** The service's login, the system work's, and the owner's (admin commands migrate with it). */
  databaseUrl: string;
  systemDatabaseUrl: string;
  ownerDatabaseUrl?: string;
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  pid: number;
}

export const localStackFile = (dataDir: string): string => path.join(dataDir, 'local-stack.json');

/** Written last by `npm start` (mode 0600: it names the database with its password). */
export function writeLocalStackState(dataDir: string, state: LocalStackState): void {
  fs.writeFileSync(localStackFile(dataDir), JSON.stringify(state), { mode: 0o600 });
}

/** Removed on stop; synchronous so it also runs from an exit handler. Only our own file is removed. */
export function removeLocalStackState(dataDir: string, pid = process.pid): void {
  const state = readState(dataDir);
  if (state?.pid === pid) fs.rmSync(localStackFile(dataDir), { force: true });
}

function readState(dataDir: string): LocalStackState | null {
  try {
    const state = JSON.parse(fs.readFileSync(localStackFile(dataDir), 'utf8')) as Partial<LocalStackState>;
    if (
      typeof state.pid !== 'number' ||
      !state.databaseUrl ||
      !state.systemDatabaseUrl ||
      !state.temporalAddress
    )
      return null;
    return state as LocalStackState;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export type StackNeed = 'database' | 'temporal';

/**
 * The configuration of an operator command (admin, insurer, ops). What the environment sets wins; what it
 * leaves unset comes from the stack `npm start` runs for the same DATA_DIR (its state file, when its pid is
 * alive). Neither: one line naming both ways out.
 */
export function operatorConfig(needs: StackNeed[], env: NodeJS.ProcessEnv = process.env): Config {
  const config = loadConfig(env);
  const missing = needs.some((need) =>
    need === 'database' ? !config.DATABASE_URL : !config.TEMPORAL_ADDRESS,
  );
  if (!missing) return config;
  const state = readState(config.dataDir);
  if (!state || !isAlive(state.pid)) {
    throw new ConfigError(
      `no local stack is running for DATA_DIR=${config.dataDir}: start one with \`npm start\` in another terminal, or set DATABASE_URL and TEMPORAL_ADDRESS`,
    );
  }
  const set = (value: string | undefined): string | undefined => (value ? value : undefined);
  return loadConfig({
    ...env,
    // The stack's logins come as a set: an environment naming its own DATABASE_URL names all it needs.
    ...(set(env.DATABASE_URL)
      ? {}
      : {
          DATABASE_URL: state.databaseUrl,
          DATABASE_SYSTEM_URL: state.systemDatabaseUrl,
          DATABASE_OWNER_URL: state.ownerDatabaseUrl,
        }),
    TEMPORAL_ADDRESS: set(env.TEMPORAL_ADDRESS) ?? state.temporalAddress,
    TEMPORAL_NAMESPACE: set(env.TEMPORAL_NAMESPACE) ?? state.namespace,
    TEMPORAL_TASK_QUEUE: set(env.TEMPORAL_TASK_QUEUE) ?? state.taskQueue,
    ...storedKeysUnlessSet(env, storedLocalKeys(config.dataDir)),
  });
}

/** The stack's stored keys for the variables the environment leaves unset (the older payload key counts). */
export function storedKeysUnlessSet(env: NodeJS.ProcessEnv, stored: Partial<LocalKeys>): NodeJS.ProcessEnv {
  const payloadKeySet = Boolean(env.PAYLOAD_ENCRYPTION_KEYS || env.PAYLOAD_ENCRYPTION_KEY);
  return {
    WEBHOOK_SECRET_KEYS: env.WEBHOOK_SECRET_KEYS || stored.WEBHOOK_SECRET_KEYS,
    PAYLOAD_ENCRYPTION_KEYS: payloadKeySet ? env.PAYLOAD_ENCRYPTION_KEYS : stored.PAYLOAD_ENCRYPTION_KEYS,
    CODEC_SERVER_TOKEN: env.CODEC_SERVER_TOKEN || stored.CODEC_SERVER_TOKEN,
  };
}
