import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { dropDatabase } from '../db/databases.js';
import {
  dynamicConfig,
  nodeConfig,
  SERVICES,
  type NodePorts,
  type PostgresTarget,
} from './temporal-cluster-config.js';
import { createSchemas, postgresTarget, registerNamespace } from './temporal-cluster-setup.js';
import { clientTlsOptions, createClusterTls, type ClusterTls } from './temporal-cluster-tls.js';
import { lowFreePort } from './ports.js';
import { stopChild, waitForTemporal } from './temporal.js';
import { startTcpBalancer } from './tcp-balancer.js';
import type { ClusterNode, ClusterOptions, RunningCluster } from './temporal-cluster-types.js';

export type { ClusterNode, ClusterOptions, RunningCluster };

/**
 * A Temporal cluster as production runs it: the release server (not the dev server) on PostgreSQL for
 * persistence and visibility, several nodes with every service each, behind one front door. The
 * launcher owns two databases on the given PostgreSQL server (recreated at each start), the nodes'
 * configs and logs under `dir`, and the processes; it registers the namespace and the project's
 * search attributes before it returns.
 */
const NODE_START_MS = 120_000;

/**
 * History shards of a cluster this launcher creates (`numHistoryShards`): fixed when the cluster's
 * persistence is first written, never changed afterwards (docs/performance.md, past one machine).
 */
export const DEFAULT_HISTORY_SHARDS = 4;

export async function startTemporalCluster(opts: ClusterOptions): Promise<RunningCluster> {
  const log = opts.log ?? (() => undefined);
  const databases = { persistence: opts.name, visibility: `${opts.name}_visibility` };
  const postgres = postgresTarget(opts.serverUrl);
  await createSchemas(opts, postgres, databases, log);
  log('creating the cluster CA and its node and client certificates (mTLS)');
  const tls = await createClusterTls(path.join(opts.dir, 'tls'));

  const nodes: ClusterNode[] = [];
  // Every node's ports are chosen before any node listens, so the check in lowFreePort cannot see
  // the ones already given out: they (and the ports others in this run will take) are skipped here.
  const taken = new Set([opts.port ?? 0, ...(opts.reservedPorts ?? [])]);
  for (let i = 1; i <= (opts.nodes ?? 2); i++) {
    const ports = await nodePorts(taken);
    nodes.push({
      name: `node-${i}`,
      ports,
      frontendAddress: `127.0.0.1:${ports.frontend.grpc}`,
      logFile: path.join(opts.dir, `node-${i}.log`),
      process: null,
    });
  }
  const balancer = await startTcpBalancer(
    nodes.map((n) => ({ name: n.name, host: '127.0.0.1', port: n.ports.frontend.grpc })),
    opts.port ?? 0,
  );
  writeConfigs(opts, { postgres, databases, tls }, nodes, balancer.address);

  const startNode = async (node: ClusterNode): Promise<void> => {
    node.process = spawnNode(opts, node);
    const child = node.process;
    await waitForTemporal(
      node.frontendAddress,
      NODE_START_MS,
      () => (child.exitCode !== null ? `${node.name} exited: ${tail(node.logFile)}` : null),
      clientTlsOptions(tls),
    );
  };
  const killAll = () => nodes.forEach((n) => n.process?.kill('SIGKILL'));
  // A test run or a terminal that ends abruptly must not leave server processes behind.
  process.once('exit', killAll);
  const cluster: RunningCluster = {
    address: balancer.address,
    namespace: opts.namespace,
    nodes,
    databases,
    tls,
    balancer,
    isRunning: (node) => !!node.process && node.process.exitCode === null && node.process.signalCode === null,
    async killNode(node) {
      const child = node.process;
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
    stopNode: (node) => (node.process ? stopChild(node.process, 30_000) : Promise.resolve()),
    startNode,
    async stop({ dropDatabases = true } = {}) {
      process.removeListener('exit', killAll);
      await balancer.close();
      await Promise.all(nodes.map((n) => cluster.stopNode(n)));
      if (dropDatabases) {
        await dropDatabase(opts.serverUrl, databases.persistence);
        await dropDatabase(opts.serverUrl, databases.visibility);
      }
    },
  };
  try {
    // One after the other: the first node writes the cluster's metadata, the next ones join it.
    for (const node of nodes) {
      log(`starting Temporal ${node.name} (frontend ${node.frontendAddress})`);
      await startNode(node);
    }
    await registerNamespace(opts, cluster, log);
  } catch (err) {
    await cluster.stop({ dropDatabases: false }).catch(() => undefined);
    throw err;
  }
  return cluster;
}

async function nodePorts(taken: Set<number>): Promise<NodePorts> {
  const ports = {} as NodePorts;
  for (const service of SERVICES) {
    ports[service] = { grpc: await lowFreePort(taken), membership: await lowFreePort(taken) };
  }
  return ports;
}

function writeConfigs(
  opts: ClusterOptions,
  {
    postgres,
    databases,
    tls,
  }: { postgres: PostgresTarget; databases: RunningCluster['databases']; tls: ClusterTls },
  nodes: ClusterNode[],
  frontendAddress: string,
): void {
  const configDir = path.join(opts.dir, 'config');
  fs.mkdirSync(configDir, { recursive: true });
  const dynamicConfigFile = path.join(configDir, 'dynamic.yaml');
  fs.writeFileSync(dynamicConfigFile, dynamicConfig());
  for (const node of nodes) {
    const yaml = nodeConfig({
      postgres,
      persistenceDb: databases.persistence,
      visibilityDb: databases.visibility,
      ports: node.ports,
      numHistoryShards: opts.numHistoryShards ?? DEFAULT_HISTORY_SHARDS,
      frontendAddress,
      dynamicConfigFile,
      logLevel: opts.logLevel ?? 'warn',
      tls,
    });
    // The config may hold the database password: readable by its owner only.
    fs.writeFileSync(path.join(configDir, `${node.name}.yaml`), yaml, { mode: 0o600 });
  }
}

/** `temporal-server --root <dir> --config config --env node-N start`: config/node-N.yaml, all services. */
function spawnNode(opts: ClusterOptions, node: ClusterNode): ChildProcess {
  const out = fs.openSync(node.logFile, 'a');
  try {
    return spawn(
      opts.binaries.server,
      ['--root', opts.dir, '--config', 'config', '--env', node.name, '--allow-no-auth', 'start'],
      { stdio: ['ignore', out, out] },
    );
  } finally {
    fs.closeSync(out);
  }
}

function tail(file: string, lines = 30): string {
  try {
    const last = fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines);
    return last.map((line) => line.slice(0, 400)).join('\n');
  } catch {
    return '(no log)';
  }
}
