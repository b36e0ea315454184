import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { waitForHttp } from './processes.js';
import { clientTlsEnv, type ClusterTls } from './temporal-cluster-tls.js';
import { stopChild } from './temporal.js';
import { UI_CONFIG_ENV, type UiServer } from './temporal-ui-server.js';

/**
 * The Temporal Web UI of a cluster, as docker-compose's `temporalio/ui` service runs it: the same
 * release, its own config template, the same TEMPORAL_* settings (the client certificate of the
 * cluster's mTLS, the codec endpoint). One difference, because it has no login of its own: it listens
 * on loopback only (a `base.yaml` beside the template sets `host`; compose keeps it unpublished
 * behind an authenticating proxy instead).
 */
export interface UiSettings {
  /** The frontend it dials: the cluster's front door. */
  address: string;
  namespace: string;
  port: number;
  /** The cluster's client certificate; without one the UI dials in plaintext (and is refused). */
  tls?: ClusterTls;
  /** Where the browser decodes payloads: the codec server, its token as the first path segment. */
  codecEndpoint?: string;
}

export interface RunningUi {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** The settings as the template's variables (what compose's `temporal-ui` environment sets too). */
export function uiEnvironment(s: UiSettings): Record<string, string> {
  return {
    TEMPORAL_ADDRESS: s.address,
    TEMPORAL_UI_PORT: String(s.port),
    TEMPORAL_DEFAULT_NAMESPACE: s.namespace,
    // The UI's own origins (its writes carry them); no other site may call its API from a browser.
    TEMPORAL_CORS_ORIGINS: [`http://127.0.0.1:${s.port}`, `http://localhost:${s.port}`].join(','),
    ...(s.tls ? { ...clientTlsEnv(s.tls), TEMPORAL_TLS_ENABLE_HOST_VERIFICATION: 'true' } : {}),
    TEMPORAL_CODEC_ENDPOINT: s.codecEndpoint ?? '',
    // A local UI asks no one on the internet about newer releases.
    TEMPORAL_NOTIFY_ON_NEW_VERSION: 'false',
  };
}

/**
 * Starts the UI server with its config under `dir` and its output in `dir`/ui.log; resolves once it
 * answers on `http://127.0.0.1:<port>`. Only PATH and HOME come from this process's environment, so
 * no stray TEMPORAL_* variable changes what it was given.
 */
export async function startTemporalUi(ui: UiServer, s: UiSettings, dir: string): Promise<RunningUi> {
  const configDir = path.join(dir, 'ui-config');
  fs.mkdirSync(configDir, { recursive: true });
  const template = fs.readFileSync(path.join(ui.root, ui.configDir, `${UI_CONFIG_ENV}.yaml`));
  fs.writeFileSync(path.join(configDir, `${UI_CONFIG_ENV}.yaml`), template);
  fs.writeFileSync(path.join(configDir, 'base.yaml'), 'host: 127.0.0.1\n');
  const logFile = path.join(dir, 'ui.log');
  const out = fs.openSync(logFile, 'a');
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, ...uiEnvironment(s) };
  const child = spawn(ui.binary, ['--root', dir, '--config', 'ui-config', '--env', UI_CONFIG_ENV, 'start'], {
    env,
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  // Whoever ends this process (embedded PostgreSQL's signal hooks exit at once), the UI goes with it.
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  const stop = async () => {
    process.removeListener('exit', kill);
    await stopChild(child);
  };
  const url = `http://127.0.0.1:${s.port}`;
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) =>
      reject(new Error(`the Temporal UI exited (${code}): ${fs.readFileSync(logFile, 'utf8').slice(-2000)}`)),
    ),
  );
  exited.catch(() => undefined);
  await Promise.race([waitForHttp(`${url}/api/v1/settings`, 30_000), exited]).catch(async (err: unknown) => {
    await stop();
    throw err;
  });
  return { url, process: child, stop };
}
