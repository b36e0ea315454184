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
  /** The all-in-one delivers webhooks to this machine's receivers; its operator commands register them. */
  webhookAllowPrivate?: boolean;
  pid: number;
  /** Its API, for the line a second `npm start` on the same DATA_DIR stops with. */
  apiUrl?: string;
  /** Its Temporal Web UI, so operators' links (`ops stuck`) open this stack's UI whatever its port. */
  temporalUiUrl?: string;
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
  const found = readState(config.dataDir);
  const state = found && isAlive(found.pid) ? found : null;
  const set = (value: string | undefined): string | undefined => (value ? value : undefined);
  if (!missing) {
    // The environment names the services itself. When they are the running stack's (a terminal that
    // exports that stack's DATABASE_URL), its keys and Web UI still fill what the environment leaves
    // unset; another database or server gets nothing of this stack's.
    if (!state || !namesStack(env, state)) return config;
    return loadConfig({
      ...env,
      TEMPORAL_UI_URL: set(env.TEMPORAL_UI_URL) ?? state.temporalUiUrl,
      ...storedKeysUnlessSet(env, storedLocalKeys(config.dataDir)),
    });
  }
  if (!state) {
    throw new ConfigError(
      `no local stack is running for DATA_DIR=${config.dataDir}: start one with \`npm start\` in another terminal, or set DATABASE_URL and TEMPORAL_ADDRESS`,
    );
  }
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
    WEBHOOK_ALLOW_PRIVATE: set(env.WEBHOOK_ALLOW_PRIVATE) ?? (state.webhookAllowPrivate ? 'true' : undefined),
    TEMPORAL_UI_URL: set(env.TEMPORAL_UI_URL) ?? state.temporalUiUrl,
    ...storedKeysUnlessSet(env, storedLocalKeys(config.dataDir)),
  });
}

/** Whether every service address the environment sets is the running stack's. */
function namesStack(env: NodeJS.ProcessEnv, state: LocalStackState): boolean {
  return (
    (!env.DATABASE_URL || env.DATABASE_URL === state.databaseUrl) &&
    (!env.TEMPORAL_ADDRESS || env.TEMPORAL_ADDRESS === state.temporalAddress)
  );
}

/** The running stack of a DATA_DIR, if any (its state file, when its pid is alive). */
export function runningLocalStack(dataDir: string): LocalStackState | null {
  const state = readState(dataDir);
  return state && isAlive(state.pid) ? state : null;
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
