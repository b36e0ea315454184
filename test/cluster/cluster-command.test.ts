import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { ROOT } from '../../infra/processes.js';
import { lowFreePort } from '../../infra/ports.js';
import { TEMPORAL_SERVER_VERSION } from '../../infra/temporal-server-binaries.js';
import { TEMPORAL_UI_VERSION } from '../../infra/temporal-ui-server.js';

/**
 * `npm run cluster` as a person runs it (no DATABASE_* login: its own embedded PostgreSQL under DATA_DIR):
 * it prints the Web UI's address, that UI reaches the cluster through mTLS and sends the browser to the
 * codec server of the same DATA_DIR, and Ctrl-C stops the UI with the nodes.
 */
describe('npm run cluster: the cluster with its Web UI', function () {
  this.timeout(240_000);
  let dataDir: string;
  let child: ChildProcess;
  let printed = '';
  let ports: { frontDoor: number; ui: number; codec: number };

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ghi-npm-cluster-'));
    // Run as root, the embedded PostgreSQL runs as the postgres user, who must enter DATA_DIR.
    fs.chmodSync(dataDir, 0o755);
    const taken = new Set<number>();
    ports = {
      frontDoor: await lowFreePort(taken),
      ui: await lowFreePort(taken),
      codec: await lowFreePort(taken),
    };
    const env = Object.fromEntries(
      Object.entries(process.env).filter(
        ([k]) => !k.startsWith('DATABASE_') && !k.startsWith('TEMPORAL_TLS'),
      ),
    );
    child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts', 'cluster.ts')], {
      env: {
        ...env,
        DATA_DIR: dataDir,
        TEMPORAL_CLUSTER_PORT: String(ports.frontDoor),
        TEMPORAL_CLUSTER_UI_PORT: String(ports.ui),
        CODEC_SERVER_PORT: String(ports.codec),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    let errors = '';
    child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      const started = setInterval(() => {
        if (printed.includes('Ctrl-C stops')) done(resolve);
      }, 200);
      const done = (then: () => void) => {
        clearInterval(started);
        then();
      };
      child.once('exit', (code) =>
        done(() => reject(new Error(`npm run cluster exited (${code}): ${errors}`))),
      );
    });
  });
  after(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGINT');
      await exited;
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const uiUrl = () => `http://127.0.0.1:${ports.ui}`;

  it('prints the Web UI on loopback, which reaches the cluster with its client certificate', async () => {
    expect(printed).to.contain(`Web UI             ${uiUrl()}/namespaces/default/workflows`);
    const info = (await (await fetch(`${uiUrl()}/api/v1/cluster-info`)).json()) as { serverVersion: string };
    expect(info.serverVersion).to.equal(TEMPORAL_SERVER_VERSION.slice(1));
    const settings = (await (await fetch(`${uiUrl()}/api/v1/settings`)).json()) as {
      Version: string;
      Codec: { Endpoint: string };
    };
    expect(settings.Version).to.equal(TEMPORAL_UI_VERSION.slice(1));
    // The codec server `npm start` runs for this DATA_DIR: its token, from the same keys file.
    const keys = JSON.parse(fs.readFileSync(path.join(dataDir, 'local-keys.json'), 'utf8')) as {
      CODEC_SERVER_TOKEN: string;
    };
    expect(settings.Codec.Endpoint).to.equal(`http://127.0.0.1:${ports.codec}/${keys.CODEC_SERVER_TOKEN}`);
  });

  it('stops the Web UI with the nodes on Ctrl-C', async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    await exited;
    const answers = (url: string) =>
      fetch(url).then(
        () => true,
        () => false,
      );
    // A process killed on the way out closes its port once the kernel has reaped it: a moment.
    const deadline = Date.now() + 10_000;
    while ((await answers(`${uiUrl()}/api/v1/settings`)) && Date.now() < deadline) await sleep(200);
    expect(await answers(`${uiUrl()}/api/v1/settings`), 'the UI still answers').to.equal(false);
    expect(await answers(`http://127.0.0.1:${ports.frontDoor}`), 'the front door still accepts').to.equal(
      false,
    );
  });
});
