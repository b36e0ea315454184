import YAML from 'yaml';
import type { ClusterTls } from './temporal-cluster-tls.js';

/**
 * A Temporal server node's static config, shaped like the release's
 * `config/development-postgres12.yaml`: PostgreSQL for persistence and for visibility, every service
 * in the one process on ports of its own, membership on loopback. Nodes find each other through the
 * `cluster_membership` table of the shared persistence database.
 */
export const SERVICES = ['frontend', 'history', 'matching', 'worker'] as const;
export type ServiceName = (typeof SERVICES)[number];

export interface ServicePorts {
  grpc: number;
  membership: number;
}
export type NodePorts = Record<ServiceName, ServicePorts>;

export interface PostgresTarget {
  host: string;
  port: number;
  user: string;
  password: string;
}

export interface NodeConfigInput {
  postgres: PostgresTarget;
  persistenceDb: string;
  visibilityDb: string;
  ports: NodePorts;
  numHistoryShards: number;
  /** The cluster's front door (what clients dial); the same on every node. */
  frontendAddress: string;
  dynamicConfigFile: string;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  tls: ClusterTls;
}

/**
 * Connection pools stay small: each service in a node opens its own, and the PostgreSQL the tests
 * use (max_connections 100 by default) is shared with the application and other runs.
 */
const POOLS = { persistence: { maxConns: 6, maxIdleConns: 2 }, visibility: { maxConns: 2, maxIdleConns: 1 } };

function datastore(
  input: NodeConfigInput,
  databaseName: string,
  pool: { maxConns: number; maxIdleConns: number },
) {
  return {
    sql: {
      pluginName: 'postgres12',
      databaseName,
      connectAddr: `${input.postgres.host}:${input.postgres.port}`,
      connectProtocol: 'tcp',
      user: input.postgres.user,
      password: input.postgres.password,
      ...pool,
      maxConnLifetime: '1h',
    },
  };
}

export function nodeConfig(input: NodeConfigInput): string {
  const services = Object.fromEntries(
    SERVICES.map((name) => [
      name,
      {
        rpc: {
          grpcPort: input.ports[name].grpc,
          membershipPort: input.ports[name].membership,
          bindOnLocalHost: true,
        },
      },
    ]),
  );
  const config = {
    log: { stdout: true, level: input.logLevel },
    persistence: {
      defaultStore: 'postgres-default',
      visibilityStore: 'postgres-visibility',
      numHistoryShards: input.numHistoryShards,
      datastores: {
        'postgres-default': datastore(input, input.persistenceDb, POOLS.persistence),
        'postgres-visibility': datastore(input, input.visibilityDb, POOLS.visibility),
      },
    },
    global: {
      membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' },
      tls: tlsConfig(input.tls),
    },
    services,
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: {
          enabled: true,
          initialFailoverVersion: 1,
          rpcName: 'frontend',
          rpcAddress: input.frontendAddress,
        },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } },
    namespaceDefaults: { archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } } },
    dynamicConfigClient: { filepath: input.dynamicConfigFile, pollInterval: '10s' },
  };
  return YAML.stringify(config);
}

/**
 * mTLS everywhere: the frontend (clients) and internode (history, matching, the system worker's calls to
 * the frontend) require a client certificate of the cluster's CA, and nodes verify each other's
 * certificate against it under the cluster's server name.
 */
function tlsConfig(tls: ClusterTls) {
  const server = {
    certFile: tls.serverCert,
    keyFile: tls.serverKey,
    requireClientAuth: true,
    clientCaFiles: [tls.ca],
  };
  const client = { serverName: tls.serverName, rootCaFiles: [tls.ca] };
  return { internode: { server, client }, frontend: { server, client } };
}

/**
 * Server settings the service is measured and tested with, on the dev server (startDevServer passes
 * them as --dynamic-config-value) and on the cluster (below; docker-compose mounts the same file,
 * deploy/temporal-dynamic-config.yaml, checked against dynamicConfig() by a test).
 * - Eager activities: when a workflow task schedules an activity on its own task queue and the
 *   worker has a free slot, the server hands the activity back with the task's completion instead of
 *   dispatching it through matching. Off by default in the server; measured on one endorsement in
 *   flight (bench/endorsement-trace.ts): each activity waited 30–45 ms between scheduled and started,
 *   create -> APPROVED went from a median of 150 ms to 108 ms (docs/performance.md).
 */
export const SERVICE_DYNAMIC_CONFIG: Readonly<Record<string, boolean | number>> = {
  'system.enableActivityEagerExecution': true,
};

/**
 * The cluster's dynamic config: the service's settings above, and two the dev server sets as well
 * (temporalcli/devserver): a mutable-state cache of 8k entries (not 128k: memory on a shared machine)
 * and visibility RPS per frontend above the default of 10, which a run that lists and counts would hit.
 */
export function dynamicConfig(): string {
  const value = (v: unknown) => [{ value: v, constraints: {} }];
  return YAML.stringify({
    'history.hostLevelCacheMaxSize': value(8096),
    'frontend.namespaceRPS.visibility': value(100),
    ...Object.fromEntries(Object.entries(SERVICE_DYNAMIC_CONFIG).map(([key, v]) => [key, value(v)])),
  });
}
