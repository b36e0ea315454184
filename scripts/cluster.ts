import fs from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../config/index.js';
import { uiCodecEndpoint } from '../infra/codec-server.js';
import { localSigningKeys } from '../infra/local-keys.js';
import { startEmbeddedPostgres, type RunningPostgres } from '../infra/postgres.js';
import { startTemporalCluster, type RunningCluster } from '../infra/temporal-cluster.js';
import { clientTlsEnv } from '../infra/temporal-cluster-tls.js';
import { resolveServerBinaries } from '../infra/temporal-server-binaries.js';
import { startTemporalUi, type RunningUi } from '../infra/temporal-ui.js';
import { resolveUiServer } from '../infra/temporal-ui-server.js';
import { resolveTemporalCli } from '../infra/temporal.js';
import { freePort } from '../infra/ports.js';

/**
 * `npm run cluster`: the production shape of Temporal on this machine, two release server nodes on
 * PostgreSQL (the server of DATABASE_OWNER_URL, a login that may create databases, else an embedded
 * one under DATA_DIR) behind a front door on
 * TEMPORAL_CLUSTER_PORT, mTLS required (CA and certificates made at each start, printed for the
 * TEMPORAL_TLS_* settings), and its Web UI on loopback (TEMPORAL_CLUSTER_UI_PORT) with the cluster's
 * client certificate, decoding payloads through the codec server `npm start` runs for the same DATA_DIR.
 * Its databases are recreated at each start and kept after Ctrl-C for a look.
 */
const config = loadConfig();
let pg: RunningPostgres | null = null;
let cluster: RunningCluster | null = null;
let ui: RunningUi | null = null;
let stopping: Promise<never> | null = null;

function stopAll(code: number): Promise<never> {
  stopping ??= (async () => {
    await ui?.stop();
    await cluster?.stop({ dropDatabases: false });
    await pg?.stop();
    process.exit(code);
  })();
  return stopping;
}
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));

async function main(): Promise<void> {
  const dir = path.resolve(config.dataDir, 'temporal-cluster');
  await fs.mkdir(dir, { recursive: true });
  // Temporal's databases are created by a login that may create them: the owner's, never the service's.
  let serverUrl = config.DATABASE_OWNER_URL;
  if (!serverUrl) {
    pg = await startEmbeddedPostgres(path.join(config.dataDir, 'cluster-postgres'), await freePort());
    serverUrl = pg.url;
  }
  const log = (line: string) => console.error(line);
  const uiServer = await resolveUiServer({ log });
  cluster = await startTemporalCluster({
    serverUrl,
    name: 'ghi_temporal_cluster',
    namespace: config.TEMPORAL_NAMESPACE,
    binaries: await resolveServerBinaries({ log }),
    cli: await resolveTemporalCli(config.TEMPORAL_CLI_PATH),
    dir,
    port: config.TEMPORAL_CLUSTER_PORT,
    reservedPorts: [config.TEMPORAL_CLUSTER_UI_PORT, config.CODEC_SERVER_PORT],
    logLevel: 'warn',
    log,
  });
  // The same keys file as `npm start`: its codec server answers this UI with this token.
  const keys = await localSigningKeys(config.dataDir, process.env);
  const codecEndpoint = uiCodecEndpoint(loadConfig({ ...process.env, ...keys }));
  ui = await startTemporalUi(
    uiServer,
    {
      address: cluster.address,
      namespace: cluster.namespace,
      port: config.TEMPORAL_CLUSTER_UI_PORT,
      tls: cluster.tls,
      codecEndpoint,
    },
    dir,
  );
  const db = new URL(serverUrl);
  const tlsEnv = Object.entries(clientTlsEnv(cluster.tls))
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  console.log(
    [
      '',
      `Temporal cluster   ${cluster.address} (front door; namespace ${cluster.namespace})`,
      ...cluster.nodes.map((n) => `  ${n.name}           frontend ${n.frontendAddress}, log ${n.logFile}`),
      `Databases          ${cluster.databases.persistence}, ${cluster.databases.visibility} on ${db.host}`,
      `mTLS               CA and certificates under ${cluster.tls.ca.replace(/\/[^/]+$/, '')}; clients need:`,
      `  ${tlsEnv}`,
      `Web UI             ${ui.url}/namespaces/${cluster.namespace}/workflows (mTLS as cluster-client; log ${dir}/ui.log)`,
      `  payloads decode through the codec server of \`npm start\` (${codecEndpoint.replace(/\/[^/]+$/, '')})`,
      `Use it             TEMPORAL_ADDRESS=${cluster.address} TEMPORAL_UI_URL=${ui.url} <the TEMPORAL_TLS_* above> npm start   (in another terminal)`,
      `CLI                <the TEMPORAL_TLS_* above> temporal workflow list --address ${cluster.address}`,
      'Ctrl-C stops both nodes and the Web UI.',
      '',
    ].join('\n'),
  );
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  void stopAll(1);
});
