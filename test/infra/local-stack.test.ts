import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { writeLocalStackState } from '../../infra/local-stack.js';
import { sql } from '../support/factories.js';
import { stack, TEST_KEYS } from '../support/stack.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

/** The environment of a second terminal: none of the stack's variables, only DATA_DIR. */
function bareEnv(dataDir: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir };
}

/** Runs `npm run -s <script> -- …` as an operator types it. */
async function npmRun(
  dataDir: string,
  script: string,
  ...args: string[]
): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)('npm', ['run', '-s', script, '--', ...args], {
      cwd: ROOT,
      env: bareEnv(dataDir),
    });
    return { code: 0, out: stdout, err: stderr };
  } catch (e) {
    const failure = e as { code: number; stdout: string; stderr: string };
    return { code: failure.code, out: failure.stdout, err: failure.stderr };
  }
}

/** npm's own warnings about the user's npmrc are not the command's output. */
const ownLines = (err: string): string[] =>
  err.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('npm warn'));

describe('operator commands beside npm start', function () {
  this.timeout(90_000);
  let dataDir: string;
  let standIn: ChildProcess | null = null;

  beforeEach(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gh-local-stack-'));
  });
  afterEach(async () => {
    standIn?.kill();
    standIn = null;
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  const NO_STACK = 'start one with `npm start` in another terminal, or set DATABASE_URL and TEMPORAL_ADDRESS';

  it('without a running stack or variables, each command exits non-zero with one line naming both ways out', async () => {
    for (const [script, args] of [
      ['ops', ['stuck', '--json']],
      ['insurer', ['approve', 'end_01J0000000000000000000000A']],
      ['admin', ['client:create', '--name', 'Acme']],
    ] as const) {
      const res = await npmRun(dataDir, script, ...args);
      expect(res.code, script).to.equal(1);
      expect(ownLines(res.err), script).to.deep.equal([
        `no local stack is running for DATA_DIR=${dataDir}: ${NO_STACK}`,
      ]);
      expect(res.out).to.equal('');
    }
  });

  it('ignores a state file whose process is gone', async () => {
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => gone.on('exit', resolve));
    writeLocalStackState(dataDir, {
      databaseUrl: stack().databaseUrl,
      systemDatabaseUrl: stack().systemDatabaseUrl,
      temporalAddress: stack().temporalAddress,
      namespace: 'default',
      taskQueue: stack().taskQueue,
      pid: gone.pid!,
    });
    const res = await npmRun(dataDir, 'ops', 'stuck', '--json');
    expect(res.code).to.equal(1);
    expect(ownLines(res.err)).to.deep.equal([
      `no local stack is running for DATA_DIR=${dataDir}: ${NO_STACK}`,
    ]);
  });

  it("reads the running stack's database and Temporal from its state file in DATA_DIR", async () => {
    // A live process stands in for npm start's own pid.
    standIn = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)']);
    const s = stack();
    writeLocalStackState(dataDir, {
      databaseUrl: s.databaseUrl,
      systemDatabaseUrl: s.systemDatabaseUrl,
      temporalAddress: s.temporalAddress,
      namespace: 'default',
      taskQueue: s.taskQueue,
      pid: standIn.pid!,
    });
    expect((await fs.stat(path.join(dataDir, 'local-stack.json'))).mode & 0o777).to.equal(0o600);
    // Commands open webhook secrets and Temporal payloads with the keys npm start keeps beside its state
    // file (the run's own keys here, so every endpoint and history of the run is already under them).
    await fs.writeFile(
      path.join(dataDir, 'local-keys.json'),
      JSON.stringify({
        WEBHOOK_SECRET_KEYS: TEST_KEYS.WEBHOOK_SECRET_KEYS,
        PAYLOAD_ENCRYPTION_KEYS: TEST_KEYS.PAYLOAD_ENCRYPTION_KEYS,
      }),
      { mode: 0o600 },
    );

    const stuck = await npmRun(dataDir, 'ops', 'stuck', '--json');
    expect(stuck.code, stuck.err).to.equal(0);
    expect(JSON.parse(stuck.out)).to.be.an('array');

    const created = await npmRun(dataDir, 'admin', 'client:create', '--name', 'Beside Start Ltd', '--json');
    expect(created.code, created.err).to.equal(0);
    const { client_id: clientId } = JSON.parse(created.out) as { client_id: string };
    expect(await sql('select name from clients where id = ?', [clientId])).to.deep.equal([
      { name: 'Beside Start Ltd' },
    ]);

    const resealed = await npmRun(dataDir, 'admin', 'webhook:reseal', '--json');
    expect(resealed.code, resealed.err).to.equal(0);
    expect(JSON.parse(resealed.out)).to.deep.include({
      key_id: TEST_KEYS.WEBHOOK_SECRET_KEYS!.split(':')[0],
      resealed: 0,
    });

    // The stack's webhooks reach receivers on this machine only when npm start said so in its state file.
    const loopback = await npmRun(dataDir, 'admin', 'webhook:add', clientId, 'http://127.0.0.1:9/hooks');
    expect(loopback.code).to.not.equal(0);
    expect(ownLines(loopback.err).join('\n')).to.match(/127\.0\.0\.1 resolves to a loopback address/);
    writeLocalStackState(dataDir, {
      databaseUrl: s.databaseUrl,
      systemDatabaseUrl: s.systemDatabaseUrl,
      temporalAddress: s.temporalAddress,
      namespace: 'default',
      taskQueue: s.taskQueue,
      webhookAllowPrivate: true,
      pid: standIn.pid!,
    });
    const local = await npmRun(
      dataDir,
      'admin',
      'webhook:add',
      clientId,
      'http://127.0.0.1:9/hooks',
      '--json',
    );
    expect(local.code, local.err).to.equal(0);
    expect(await sql('select url from webhook_endpoints where client_id = ?', [clientId])).to.deep.equal([
      { url: 'http://127.0.0.1:9/hooks' },
    ]);

    const decision = await npmRun(dataDir, 'insurer', 'approve', 'end_01J0000000000000000000000A');
    // Reached this stack's Temporal, which knows no such endorsement workflow.
    expect(ownLines(decision.err)).to.deep.equal(['refused: end_01J0000000000000000000000A: not found']);
  });
});
