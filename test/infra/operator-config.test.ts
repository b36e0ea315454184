import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { webhookSecretKeys, workflowUiUrl } from '../../config/index.js';
import { localKeysFile, newLocalKeys } from '../../infra/local-keys.js';
import { operatorConfig, writeLocalStackState } from '../../infra/local-stack.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

/** A DATA_DIR as a running `npm start` leaves it (its pid: this process, alive), with moved ports. */
function runningStackDir(): { dataDir: string; keys: ReturnType<typeof newLocalKeys> } {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-operator-config-'));
  const keys = newLocalKeys('local');
  fs.writeFileSync(localKeysFile(dataDir), JSON.stringify(keys), { mode: 0o600 });
  writeLocalStackState(dataDir, {
    databaseUrl: 'postgres://gha_app:pw@127.0.0.1:55001/postgres',
    systemDatabaseUrl: 'postgres://gha_system:pw@127.0.0.1:55001/postgres',
    temporalAddress: '127.0.0.1:57233',
    namespace: 'default',
    taskQueue: 'group-health',
    pid: process.pid,
    apiUrl: 'http://localhost:3100',
    temporalUiUrl: 'http://127.0.0.1:58233',
  });
  return { dataDir, keys };
}

describe('operator commands beside npm start: what the running stack fills in', () => {
  const made: string[] = [];
  const stackDir = () => {
    const dir = runningStackDir();
    made.push(dir.dataDir);
    return dir;
  };
  after(() => {
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("links the stack's own Web UI, on whatever port it runs (ops stuck)", () => {
    const { dataDir } = stackDir();
    const config = operatorConfig(['database', 'temporal'], { DATA_DIR: dataDir });
    expect(workflowUiUrl(config, 'endorsement-end_1')).to.equal(
      'http://127.0.0.1:58233/namespaces/default/workflows/endorsement-end_1',
    );
  });

  it("takes the stack's stored keys in a terminal that exports that stack's DATABASE_URL", () => {
    const { dataDir, keys } = stackDir();
    const config = operatorConfig(['database'], {
      DATA_DIR: dataDir,
      DATABASE_URL: 'postgres://gha_app:pw@127.0.0.1:55001/postgres',
      DATABASE_SYSTEM_URL: 'postgres://gha_system:pw@127.0.0.1:55001/postgres',
    });
    expect(webhookSecretKeys(config).map((k) => k.kid)).to.deep.equal(
      keys.WEBHOOK_SECRET_KEYS.split(',').map((k) => k.split(':')[0]),
    );
    expect(config.TEMPORAL_UI_URL).to.equal('http://127.0.0.1:58233');
  });

  it("gives another database none of the stack's keys", () => {
    const { dataDir } = stackDir();
    const config = operatorConfig(['database'], {
      DATA_DIR: dataDir,
      DATABASE_URL: 'postgres://app:pw@db.example.com:5432/gha',
      DATABASE_SYSTEM_URL: 'postgres://app_system:pw@db.example.com:5432/gha',
    });
    expect(config.WEBHOOK_SECRET_KEYS).to.equal(undefined);
    expect(config.TEMPORAL_UI_URL).to.equal(undefined);
  });

  it('a second npm start on that DATA_DIR stops at once, naming the running stack', async () => {
    const { dataDir } = stackDir();
    const failure = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir },
    }).then(
      () => null,
      (err: unknown) => err as { code: number; stdout: string; stderr: string },
    );
    expect(failure?.code).to.equal(1);
    expect(failure?.stdout).to.equal('');
    expect(failure?.stderr.trim().split('\n')).to.deep.equal([
      `a stack is already running for DATA_DIR=${dataDir} (pid ${process.pid}, API http://localhost:3100): ` +
        'use it, or stop it first; another DATA_DIR starts a second one',
    ]);
    // The running stack's state is left as it was.
    expect(fs.existsSync(path.join(dataDir, 'local-stack.json'))).to.equal(true);
  });
});
