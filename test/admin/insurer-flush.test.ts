import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { newId } from '../../domain/ids.js';
import { makeClient, makeEmployee, makePolicy, makeReferenceData, sql } from '../support/factories.js';
import { startSftpServer, type SftpServer } from '../support/sftp-server.js';
import { stack } from '../support/stack.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

/** Runs `npm run -s insurer -- …` the way an operator would, against this run's database. */
async function insurer(
  dataDir: string,
  ...args: string[]
): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'scripts/insurer.ts', ...args],
      {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: stack().databaseUrl, DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
      },
    );
    return { code: 0, out: stdout, err: stderr };
  } catch (e) {
    const failure = e as { code: number; stdout: string; stderr: string };
    return { code: failure.code, out: failure.stdout, err: failure.stderr };
  }
}

/** A file insurer with one reviewed addition waiting for its cut-off. */
async function waitingAddition() {
  const code = `FLUSH${randomBytes(3).toString('hex').toUpperCase()}`;
  const { clientId } = await makeClient();
  const reference = await makeReferenceData(clientId);
  await sql('update insurers set code = ? where id = ?', [code, reference.insurerId]);
  const policy = await makePolicy(clientId, { reference, policyNumber: `P-${code}` });
  const employee = await makeEmployee(clientId);
  const id = newId('endorsement');
  await sql(
    `insert into endorsements (id, client_id, policy_id, employee_id, type, status, coverage_start_date,
       coverage_end_date, premium_impact, sum_insured, workflow_started_at)
     values (?, ?, ?, ?, 'ENDORSEMENT_TYPE_ADDITION', 'ENDORSEMENT_STATUS_PENDING', '2026-11-02', '2027-03-31',
       '0.00', '300000.00', now() - interval '1 minute')`,
    [id, clientId, policy.id, employee.id],
  );
  return { code, policy, endorsementId: id, employeeName: employee.name };
}

interface FlushJson {
  insurer_code: string;
  files: {
    file_name: string;
    policy_number: string;
    rows: number;
    endorsement_ids: string[];
    destination: string;
  }[];
}

describe('insurer flush: a file insurer cut-off run now', function () {
  this.timeout(60_000);
  let dataDir: string;
  let server: SftpServer;

  before(async () => {
    server = await startSftpServer();
  });
  after(async () => server?.close());
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'flush-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('writes the waiting endorsements to the local outbox and prints the files, without personal data', async () => {
    const w = await waitingAddition();
    const run = await insurer(dataDir, 'flush', w.code, '--json');
    expect(run.code, run.err).to.equal(0);
    const printed = JSON.parse(run.out) as FlushJson;
    const outbox = path.join(dataDir, 'insurers', w.code, 'outbox');
    expect(printed.insurer_code).to.equal(w.code);
    expect(
      printed.files.map((f) => [f.policy_number, f.rows, f.endorsement_ids, f.destination]),
    ).to.deep.equal([[w.policy.policyNumber, 1, [w.endorsementId], outbox]]);
    expect(readdirSync(outbox)).to.deep.equal([printed.files[0]!.file_name]);
    expect(run.out).to.not.contain(w.employeeName);
  });

  it('delivers over SFTP with the settings file it is given', async () => {
    const w = await waitingAddition();
    const key = path.join(dataDir, 'id_ed25519');
    writeFileSync(key, server.privateKey, { mode: 0o600 });
    const settings = path.join(dataDir, 'exchange.json');
    writeFileSync(
      settings,
      JSON.stringify({
        template: 'india-census',
        formats: ['csv'],
        transport: {
          kind: 'sftp',
          host: server.host,
          port: server.port,
          username: server.username,
          private_key_file: key,
          host_key_sha256: server.hostKeySha256,
          remote_dir: server.remoteDir,
        },
      }),
    );
    const run = await insurer(dataDir, 'flush', w.code, '--settings', settings);
    expect(run.code, run.err).to.equal(0);
    const [file] = readdirSync(server.remoteDir);
    expect(file).to.match(new RegExp(`^${w.code}_P-${w.code}_\\d{8}\\.csv$`));
    expect(run.out).to.contain(file).and.contain('1 rows').and.contain(`sftp://${server.username}@`);
  });

  it('says so when nothing waits, and refuses a bad command line or settings file with exit code 2', async () => {
    const none = await insurer(dataDir, 'flush', `NONE${randomBytes(3).toString('hex')}`);
    expect([none.code, none.out.trim()]).to.deep.equal([0, 'no endorsements waiting: no file written']);
    const bare = await insurer(dataDir, 'flush');
    expect([bare.code, bare.err]).to.deep.equal([
      2,
      'usage: insurer flush <insurer_code> [--settings exchange.json] [--json]\n',
    ]);
    const settings = path.join(dataDir, 'bad.json');
    writeFileSync(settings, JSON.stringify({ template: 'acme' }));
    const bad = await insurer(dataDir, 'flush', 'ANY', '--settings', settings);
    expect(bad.code).to.equal(2);
    expect(bad.err).to.contain('template');
  });
});
