import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres, type RunningPostgres } from '../../infra/postgres.js';
import { startTemporalCluster, type RunningCluster } from '../../infra/temporal-cluster.js';
import { clientTlsEnv } from '../../infra/temporal-cluster-tls.js';
import { resolveServerBinaries } from '../../infra/temporal-server-binaries.js';
import { resolveTemporalCli } from '../../infra/temporal.js';
import { freePort } from '../../infra/ports.js';

/**
 * Which Temporal the test stack runs: `dev` (default), the CLI's dev server on SQLite, or `cluster`,
 * two release server nodes on PostgreSQL behind a front door (`npm run test:cluster`). The same test
 * files run on either.
 */
export function testTemporal(env: NodeJS.ProcessEnv = process.env): 'dev' | 'cluster' {
  const chosen = env.TEST_TEMPORAL ?? 'dev';
  if (chosen !== 'dev' && chosen !== 'cluster') {
    throw new Error(`TEST_TEMPORAL must be dev or cluster, not ${chosen}`);
  }
  return chosen;
}

export interface TestCluster {
  cluster: RunningCluster;
  /** The cluster's own PostgreSQL server (not the application's): a test may stop and start it. */
  postgres: RunningPostgres;
  stop(): Promise<void>;
}

/**
 * This run's cluster, on a PostgreSQL server of its own (embedded, on a free port): the machine's
 * PostgreSQL is shared with the application database and other runs, so only a private one can be
 * restarted as a fault. Node configs, certificates and logs live in a temporary directory.
 *
 * The cluster requires mTLS: its client certificate is put in this process's environment as
 * TEMPORAL_TLS_*, so the stack's config and every child process (worker, API, ops commands) connect
 * with it, the way an operator's environment carries the deployment's certificate.
 */
export async function startTestCluster(opts: {
  runId: string;
  namespace: string;
  cliPath?: string;
}): Promise<TestCluster> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ghi-test-cluster-'));
  // A directory of its own: run as root, PostgreSQL runs as the postgres user, who cannot enter `dir`.
  const pgDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ghi-test-cluster-pg-'));
  const postgres = await startEmbeddedPostgres(pgDir, await freePort());
  const log = process.env.CLUSTER_LOG
    ? (line: string) => console.error(`      [cluster] ${line}`)
    : undefined;
  let cluster: RunningCluster;
  try {
    cluster = await startTemporalCluster({
      serverUrl: postgres.url,
      name: `ghi_temporal_${opts.runId}`,
      namespace: opts.namespace,
      binaries: await resolveServerBinaries(),
      cli: await resolveTemporalCli(opts.cliPath),
      dir,
      log,
    });
  } catch (err) {
    await postgres.stop();
    await fs.rm(pgDir, { recursive: true, force: true });
    throw err;
  }
  Object.assign(process.env, clientTlsEnv(cluster.tls));
  return {
    cluster,
    postgres,
    async stop() {
      for (const name of Object.keys(clientTlsEnv(cluster.tls))) delete process.env[name];
      await cluster.stop({ dropDatabases: false });
      await postgres.stop();
      await fs.rm(dir, { recursive: true, force: true });
      await fs.rm(pgDir, { recursive: true, force: true });
    },
  };
}
