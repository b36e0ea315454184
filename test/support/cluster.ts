import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTemporalCluster, type RunningCluster } from '../../infra/temporal-cluster.js';
import { resolveServerBinaries } from '../../infra/temporal-server-binaries.js';
import { resolveTemporalCli } from '../../infra/temporal.js';

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

/**
 * This run's cluster: databases named after the run (another run, or a person's `npm run cluster`,
 * has its own), node configs and logs in a temporary directory kept when the run fails to start.
 */
export async function startTestCluster(opts: {
  serverUrl: string;
  runId: string;
  namespace: string;
  cliPath?: string;
}): Promise<{ cluster: RunningCluster; stop(): Promise<void> }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ghi-test-cluster-'));
  const cluster = await startTemporalCluster({
    serverUrl: opts.serverUrl,
    name: `ghi_temporal_${opts.runId}`,
    namespace: opts.namespace,
    binaries: await resolveServerBinaries(),
    cli: await resolveTemporalCli(opts.cliPath),
    dir,
    log: process.env.CLUSTER_LOG ? (line) => console.error(`      [cluster] ${line}`) : undefined,
  });
  return {
    cluster,
    async stop() {
      await cluster.stop();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
