import { setTimeout as sleep } from 'node:timers/promises';
import { Connection, type TLSConfig } from '@temporalio/client';
import { dropDatabase, ensureDatabase } from '../db/databases.js';
import { SEARCH_ATTRIBUTES } from '../workflows/search-attributes.js';
import type { ClusterOptions, RunningCluster } from './temporal-cluster-types.js';
import type { PostgresTarget } from './temporal-cluster-config.js';
import { ensureSearchAttributes, runCapturing } from './temporal.js';
import { clientTlsOptions, cliTlsFlags } from './temporal-cluster-tls.js';

/** The cluster's setup around its nodes: the databases and their schemas before, the namespace after. */

export function postgresTarget(serverUrl: string): PostgresTarget {
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
export async function createSchemas(
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

/**
 * `temporal operator namespace create` through the front door, then the search attributes (the list
 * the dev server gets at launch, workflows/search-attributes.ts). With SQL visibility they live in the
 * namespace's record, which every node re-reads on its own schedule: the launcher returns once each
 * node's frontend lists all of them.
 */
export async function registerNamespace(
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
        ...cliTlsFlags(cluster.tls),
      ],
      process.env,
    );
    if (created.code !== 0 && !/already exists|AlreadyExists/i.test(created.output)) {
      throw new Error(`namespace create failed (${created.code}): ${created.output}`);
    }
  }, 60_000);
  const connection = await Connection.connect({
    address: cluster.address,
    tls: clientTlsOptions(cluster.tls),
  });
  try {
    await retrying(() => ensureSearchAttributes(connection, opts.namespace), 30_000);
  } finally {
    await connection.close();
  }
  for (const node of cluster.nodes) {
    await waitForSearchAttributes(node.frontendAddress, clientTlsOptions(cluster.tls), opts.namespace);
  }
  // History and matching refresh their namespace cache every 2 s (system.namespaceCacheRefreshInterval).
  await sleep(4_000);
}

async function waitForSearchAttributes(address: string, tls: TLSConfig, namespace: string): Promise<void> {
  const connection = await Connection.connect({ address, tls });
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
