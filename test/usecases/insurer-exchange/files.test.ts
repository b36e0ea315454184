import { expect } from 'chai';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileAdapterSettings } from '../../../domain/insurer-exchange/adapter-settings.js';
import { InsurerDeliveryError } from '../../../adapters/file/transport.js';
import type { EndorsementType } from '../../../domain/enums.js';
import { deliverCutOff } from '../../../usecases/insurer-exchange/files.js';
import {
  makeClient,
  makeDependent,
  makeEmployee,
  makeEndorsement,
  makePolicy,
  makeReferenceData,
} from '../../support/factories.js';
import { closeSftpServer, startSftpServer, type SftpServer } from '../../support/sftp-server.js';
import { stack } from '../../support/stack.js';

// 18:00 in Kolkata on 23 Nov 2026: the files carry that date.
const CUT_OFF = new Date('2026-11-23T12:30:00Z');
const REVIEWED = new Date('2026-11-23T09:00:00Z');
const LATER = new Date('2026-11-23T09:05:00Z');

async function readXlsx(content: Buffer): Promise<unknown[][]> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(content as unknown as ArrayBuffer);
  const rows: unknown[][] = [];
  book.worksheets[0]!.eachRow((row) => rows.push((row.values as unknown[]).slice(1)));
  return rows;
}

/** A client of a file insurer: one policy with an addition (employee and spouse) and a deletion waiting. */
async function fileInsurerWithBacklog(code = `FILE${randomBytes(3).toString('hex').toUpperCase()}`) {
  const { clientId } = await makeClient();
  const reference = await makeReferenceData(clientId, { code });
  const policy = await makePolicy(clientId, {
    reference,
    coverageType: 'COVERAGE_TYPE_ES',
    policyNumber: `GHI/${code}/1`,
  });
  const endorse = async (name: string, type: EndorsementType, dateOfBirth: string, reviewedAt: Date) => {
    const employee = await makeEmployee(clientId, { name, dateOfBirth, gender: 'FEMALE' });
    const id = await makeEndorsement(clientId, policy.id, {
      employeeId: employee.id,
      type,
      start: '2026-11-02',
      cutOffQueuedAt: reviewedAt,
    });
    return { id, employee };
  };
  const addition = await endorse('Meera Nair', 'ENDORSEMENT_TYPE_ADDITION', '1992-08-15', REVIEWED);
  await makeDependent(clientId, addition.employee.id, {
    name: 'Arjun Nair',
    relationship: 'SPOUSE',
    gender: 'MALE',
    dateOfBirth: '1990-01-09',
  });
  const deletion = await endorse('Kiran Das', 'ENDORSEMENT_TYPE_DELETION', '1980-06-30', LATER);
  return { code, clientId, policy, addition, deletion };
}

describe('use case: a file insurer cut-off (D14)', function () {
  this.timeout(60_000);
  let server: SftpServer;
  let keyDir: string;
  let dataDir: string;

  before(async () => {
    server = await startSftpServer();
    keyDir = mkdtempSync(path.join(os.tmpdir(), 'insurer-key-'));
    writeFileSync(path.join(keyDir, 'id_ed25519'), server.privateKey, { mode: 0o600 });
  });
  after(async () => {
    await closeSftpServer(server, keyDir);
  });
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'cut-off-'));
  });
  afterEach(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    await server.start();
    for (const name of readdirSync(server.remoteDir)) rmSync(path.join(server.remoteDir, name));
  });

  const sftpSettings = () =>
    fileAdapterSettings.parse({
      template: 'india-census',
      formats: ['xlsx', 'csv'],
      transport: {
        type: 'sftp',
        host: server.host,
        port: server.port,
        username: server.username,
        private_key_path: path.join(keyDir, 'id_ed25519'),
        host_key_fingerprint: server.hostKeySha256,
        remote_outbox_dir: server.remoteDir,
        remote_inbox_dir: server.remoteDir,
      },
    });
  const cutOff = (code: string, settings = sftpSettings()) =>
    deliverCutOff({ em: stack().orm.em, dataDir }, { insurerCode: code, settings, cutOff: CUT_OFF });

  it('delivers one file per format over SFTP in the template, rows read from PostgreSQL', async () => {
    const b = await fileInsurerWithBacklog();
    const files = await cutOff(b.code);

    const base = `${b.code}_GHI-${b.code}-1_20261123_180000`;
    expect(files.map((f) => [f.file_name, f.policy_id, f.rows, f.endorsement_ids])).to.deep.equal([
      [`${base}.xlsx`, b.policy.id, 3, [b.addition.id, b.deletion.id]],
      [`${base}.csv`, b.policy.id, 3, [b.addition.id, b.deletion.id]],
    ]);
    expect(readdirSync(server.remoteDir).sort()).to.deep.equal([`${base}.csv`, `${base}.xlsx`]);
    const policyNo = b.policy.policyNumber;
    // prettier-ignore
    const expected = [
      ['Sr No', 'Policy No', 'Employee Code', 'Member Name', 'Relationship', 'Gender', 'DOB (DD/MM/YYYY)', 'Sum Insured', 'Effective Date', 'Endorsement Type', 'Reference No'],
      [1, policyNo, b.addition.employee.employeeCode, 'Meera Nair', 'Self', 'F', '15/08/1992', '300000', '02/11/2026', 'Addition', b.addition.id],
      [2, policyNo, b.addition.employee.employeeCode, 'Arjun Nair', 'Spouse', 'M', '09/01/1990', '300000', '02/11/2026', 'Addition', b.addition.id],
      [3, policyNo, b.deletion.employee.employeeCode, 'Kiran Das', 'Self', 'F', '30/06/1980', '300000', '31/03/2027', 'Deletion', b.deletion.id],
    ];
    expect(await readXlsx(readFileSync(path.join(server.remoteDir, `${base}.xlsx`)))).to.deep.equal(expected);
    const csv: string[][] = parse(readFileSync(path.join(server.remoteDir, `${base}.csv`)));
    expect(csv).to.deep.equal(expected.map((r) => r.map(String)));
  });

  it('a cut-off run again rewrites the same files: one per policy and format', async () => {
    const b = await fileInsurerWithBacklog();
    const first = await cutOff(b.code);
    const again = await cutOff(b.code);
    expect(again.map((f) => f.file_name)).to.deep.equal(first.map((f) => f.file_name));
    expect(readdirSync(server.remoteDir)).to.have.length(2);
  });

  it('with the SFTP server down fails retryably, and delivers once when it returns', async () => {
    const b = await fileInsurerWithBacklog();
    await server.stop();
    const err = await cutOff(b.code).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(InsurerDeliveryError);
    expect((err as InsurerDeliveryError).retryable).to.equal(true);
    await server.start();
    await cutOff(b.code);
    expect(readdirSync(server.remoteDir)).to.have.length(2);
  });

  it("gives two clients' policies with the same number at one insurer code a file each", async () => {
    const a = await fileInsurerWithBacklog();
    const b = await fileInsurerWithBacklog(a.code);
    const files = await cutOff(a.code, fileAdapterSettings.parse({ formats: ['csv'] }));
    const byPolicy = Object.fromEntries(files.map((f) => [f.policy_id, f.file_name]));
    expect(Object.keys(byPolicy).sort()).to.deep.equal([a.policy.id, b.policy.id].sort());
    const outbox = path.join(dataDir, 'insurers', a.code, 'outbox');
    expect(readdirSync(outbox).sort()).to.deep.equal(Object.values(byPolicy).sort());
    expect(readdirSync(outbox)).to.have.length(2);
  });

  it('writes to the local outbox in the generic template, and nothing for an insurer with no backlog', async () => {
    const b = await fileInsurerWithBacklog();
    const settings = fileAdapterSettings.parse({});
    const files = await cutOff(b.code, settings);
    const outbox = path.join(dataDir, 'insurers', b.code, 'outbox');
    expect(files.map((f) => [f.file_name, f.destination])).to.deep.equal([
      [`${b.code}_GHI-${b.code}-1_20261123_180000.xlsx`, outbox],
    ]);
    const rows = await readXlsx(readFileSync(path.join(outbox, files[0]!.file_name)));
    expect(rows.map((r) => [r[0], r[4], r[5]])).to.deep.equal([
      ['reference', 'member_name', 'relationship'],
      [b.addition.id, 'Meera Nair', 'SELF'],
      [b.addition.id, 'Arjun Nair', 'SPOUSE'],
      [b.deletion.id, 'Kiran Das', 'SELF'],
    ]);
    expect(await cutOff(`NONE${randomBytes(3).toString('hex')}`, settings)).to.deep.equal([]);
  });
});
