import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { dropDatabase, ensureDatabase } from '../db/databases.js';
import { SEARCH_ATTRIBUTES } from '../workflows/search-attributes.js';
import {
  dynamicConfig,
  nodeConfig,
  SERVICES,
  type NodePorts,
  type PostgresTarget,
} from './temporal-cluster-config.js';
import type { ServerBinaries } from './temporal-server-binaries.js';
import { ensureSearchAttributes, runCapturing, stopChild, waitForTemporal } from './temporal.js';
import { startTcpBalancer, type TcpBalancer } from './tcp-balancer.js';

/**
 * A Temporal cluster as production runs it: the release server (not the dev server) on PostgreSQL for
 * persistence and visibility, several nodes with every service each, behind one front door. The
 * launcher owns two databases on the given PostgreSQL server (recreated at each start), the nodes'
 * configs and logs under `dir`, and the processes; it registers the namespace and the project's
 * search attributes before it returns.
 */
export interface ClusterOptions {
  /** Any database URL of the PostgreSQL server to use; the cluster's databases are created there. */
  serverUrl: string;
  /** Database names are `<name>` (persistence) and `<name>_visibility`: [a-z0-9_], unique per cluster. */
  name: string;
  namespace: string;
  binaries: ServerBinaries;
  /** The `temporal` CLI, for `operator namespace create`. */
  cli: string;
  dir: string;
  nodes?: number;
  numHistoryShards?: number;
  /** The front door's port; 0 takes a free one. */
  port?: number;
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  log?: (line: string) => void;
}

export interface ClusterNode {
  name: string;
  ports: NodePorts;
  /** This node's own frontend (the front door spreads clients over all of them). */
  frontendAddress: string;
  logFile: string;
  process: ChildProcess | null;
}

export interface RunningCluster {
  /** The front door: what API, worker and CLIs dial. */
  address: string;
  namespace: string;
  nodes: ClusterNode[];
  databases: { persistence: string; visibility: string };
  balancer: TcpBalancer;
  isRunning(node: ClusterNode): boolean;
  /** SIGKILL: no shutdown, shards and task queues are taken over by the other nodes. */
  killNode(node: ClusterNode): Promise<void>;
  /** SIGTERM, the graceful stop a deploy does. */
  stopNode(node: ClusterNode): Promise<void>;
  /** Starts a stopped node again on its ports and waits until its frontend answers. */
  startNode(node: ClusterNode): Promise<void>;
  stop(opts?: { dropDatabases?: boolean }): Promise<void>;
}

const NODE_START_MS = 120_000;

export async function startTemporalCluster(opts: ClusterOptions): Promise<RunningCluster> {
  const log = opts.log ?? (() => undefined);
  const databases = { persistence: opts.name, visibility: `${opts.name}_visibility` };
  const postgres = postgresTarget(opts.serverUrl);
  await createSchemas(opts, postgres, databases, log);

  const nodes: ClusterNode[] = [];
  for (let i = 1; i <= (opts.nodes ?? 2); i++) {
    const ports = await nodePorts();
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
  writeConfigs(opts, postgres, databases, nodes, balancer.address);

  const startNode = async (node: ClusterNode): Promise<void> => {
    node.process = spawnNode(opts, node);
    const child = node.process;
    await waitForTemporal(node.frontendAddress, NODE_START_MS, () =>
      child.exitCode !== null ? `${node.name} exited: ${tail(node.logFile)}` : null,
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

function postgresTarget(serverUrl: string): PostgresTarget {
  const url = new URL(serverUrl);
  return {
    host: url.hostname,
    port: Number(url.port || 5432),
    user: decodeURIComponent(url.username || 'postgres'),
    password: decodeURIComponent(url.password),
  };
}

/**
 * Fresh databases, then the release's schemas with its own tool: `setup-schema -v 0.0` creates the
 * versioning tables, `update-schema` applies every versioned step (the schema files are embedded in
 * the tool, the same ones as the module's schema/postgresql/v12/{temporal,visibility}/versioned).
 */
async function createSchemas(
  opts: ClusterOptions,
  postgres: PostgresTarget,
  databases: RunningCluster['databases'],
  log: (line: string) => void,
): Promise<void> {
  const steps: [string, string][] = [
    [databases.persistence, 'postgresql/v12/temporal'],
    [databases.visibility, 'postgresql/v12/visibility'],
  ];
  for (const [database, schema] of steps) {
    await dropDatabase(opts.serverUrl, database);
    await ensureDatabase(opts.serverUrl, database);
    log(`creating the Temporal schema ${schema} in database ${database}`);
    const base = [
      opts.binaries.sqlTool,
      '--plugin',
      'postgres12',
      '--endpoint',
      postgres.host,
      '--port',
      String(postgres.port),
      '--user',
      postgres.user,
      '--database',
      database,
    ];
    // The password goes through the environment, not the command line (visible in `ps`).
    const env = { ...process.env, SQL_PASSWORD: postgres.password };
    for (const step of [
      ['setup-schema', '-v', '0.0'],
      ['update-schema', '--schema-name', schema],
    ]) {
      const { code, output } = await runCapturing([...base, ...step], env);
      if (code !== 0)
        throw new Error(`temporal-sql-tool ${step[0]} on ${database} failed (${code}): ${output}`);
    }
  }
}

async function nodePorts(): Promise<NodePorts> {
  const ports = {} as NodePorts;
  for (const service of SERVICES) {
    ports[service] = { grpc: await lowFreePort(), membership: await lowFreePort() };
  }
  return ports;
}

/**
 * A free loopback port below 32768: the PostgreSQL schema keeps a member's port in a smallint
 * (`cluster_membership.rpc_port`), so the kernel's ephemeral ports (32768 and up) make a node exit
 * at start with "value … is out of range for type smallint".
 */
async function lowFreePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const server = net.createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

function writeConfigs(
  opts: ClusterOptions,
  postgres: PostgresTarget,
  databases: RunningCluster['databases'],
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
      numHistoryShards: opts.numHistoryShards ?? 4,
      frontendAddress,
      dynamicConfigFile,
      logLevel: opts.logLevel ?? 'warn',
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

/**
 * `temporal operator namespace create` through the front door, then the search attributes (the list
 * the dev server gets at launch, workflows/search-attributes.ts). With SQL visibility they live in the
 * namespace's record, which every node re-reads on its own schedule: the launcher returns once each
 * node's frontend lists all of them.
 */
async function registerNamespace(
  opts: ClusterOptions,
  cluster: RunningCluster,
  log: (line: string) => void,
): Promise<void> {
  log(`registering namespace ${opts.namespace} and ${SEARCH_ATTRIBUTES.length} search attributes`);
  // A node's frontend answers health checks a little before it serves every call: retried briefly, and
  // a retry that finds the namespace made by the attempt before is a success.
  await retrying(async () => {
    const created = await runCapturing(
      [
        opts.cli,
        'operator',
        'namespace',
        'create',
        '--namespace',
        opts.namespace,
        '--address',
        cluster.address,
      ],
      process.env,
    );
    if (created.code !== 0 && !/already exists|AlreadyExists/i.test(created.output)) {
      throw new Error(`namespace create failed (${created.code}): ${created.output}`);
    }
  }, 60_000);
  const connection = await Connection.connect({ address: cluster.address });
  try {
    await retrying(() => ensureSearchAttributes(connection, opts.namespace), 30_000);
  } finally {
    await connection.close();
  }
  for (const node of cluster.nodes) await waitForSearchAttributes(node.frontendAddress, opts.namespace);
  // History and matching refresh their namespace cache every 2 s (system.namespaceCacheRefreshInterval).
  await sleep(4_000);
}

async function waitForSearchAttributes(address: string, namespace: string): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const listed = await connection.operatorService.listSearchAttributes({ namespace });
      const known = Object.keys(listed.customAttributes ?? {});
      if (SEARCH_ATTRIBUTES.every((key) => known.includes(key.name))) return;
      if (Date.now() > deadline)
        throw new Error(`search attributes not visible on ${address}: ${known.join(', ')}`);
      await sleep(500);
    }
  } finally {
    await connection.close();
  }
}

/** A new namespace can take a moment to reach every frontend; operations on it are retried briefly. */
async function retrying<T>(fn: () => Promise<T>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await sleep(500);
    }
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
