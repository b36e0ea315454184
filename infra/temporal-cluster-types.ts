import type { ChildProcess } from 'node:child_process';
import type { TcpBalancer } from './tcp-balancer.js';
import type { NodePorts } from './temporal-cluster-config.js';
import type { ClusterTls } from './temporal-cluster-tls.js';
import type { ServerBinaries } from './temporal-server-binaries.js';

/** What starting a cluster takes and what a running one offers (infra/temporal-cluster.ts starts it). */
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
  /** Ports something else in this run listens on (the UI's, the codec server's): never a node's. */
  reservedPorts?: number[];
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
  /** The cluster's CA and certificates (under `dir`/tls): every client needs one of its client certificates. */
  tls: ClusterTls;
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
