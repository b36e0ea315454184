import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { WorkflowFailedError, type ScheduleHandle } from '@temporalio/client';
import { expect } from 'chai';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { sendInsurerDecision } from '../../../adapters/decisions.js';
import { localInsurerFolders } from '../../../adapters/file/local.js';
import { MAX_RESPONSE_ROWS } from '../../../domain/insurer-exchange/response-file.js';
import { ingestInboxFiles, type IngestedInboxFile } from '../../../usecases/insurer-exchange/inbox.js';
import { INSURER_INBOX_SCHEDULE_ID } from '../../../workflows/insurer-inbox/contract.js';
import { makeReferenceData, sql } from '../../support/factories.js';
import { sentFileInsurerEndorsements, type FileInsurerEndorsements } from '../../support/file-insurer.js';
import { deletePeriodicSchedules, triggerPass } from '../../support/schedules.js';
import { closeSftpServer, startSftpServer, type SftpServer } from '../../support/sftp-server.js';
import { stack, TEST_KEYS } from '../../support/stack.js';
import { endorsementRow, waitForStatus } from '../../workflows/endorsement-support.js';
import { ROOT } from '../../../infra/processes.js';

const SENT = 'ENDORSEMENT_STATUS_SENT_TO_INSURER';
const APPROVED = 'ENDORSEMENT_STATUS_APPROVED';
const REJECTED = 'ENDORSEMENT_STATUS_REJECTED';
const GENERIC_HEADER = ['reference', 'decision', 'uhid', 'insurer_member_id', 'rejection_reason'];

async function xlsx(sheet: string, rows: string[][]): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  book.addWorksheet(sheet).addRows(rows);
  return Buffer.from(await book.xlsx.writeBuffer());
}

const csv = (rows: string[][]): Buffer => Buffer.from(rows.map((r) => r.join(',')).join('\r\n'));

const readAck = (file: string): string[][] => parse(readFileSync(file));

/** Each row's outcome as [row, reference, result, detail]. */
const outcomes = (f: IngestedInboxFile) => f.rows.map((r) => [r.row, r.reference, r.result, r.detail]);

async function insurerCommand(args: string[], dataDir: string) {
  const env = {
    ...process.env,
    ...TEST_KEYS,
    ...stack().databaseEnv,
    TEMPORAL_ADDRESS: stack().temporalAddress,
    TEMPORAL_NAMESPACE: stack().config.TEMPORAL_NAMESPACE,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
  };
  try {
    const { stdout, stderr } = await promisify(execFile)(
      'node',
      ['--import', 'tsx', 'scripts/insurer.ts', ...args],
      { cwd: ROOT, env },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** The workflow of a Schedule's latest run. */
async function latestRun(schedule: ScheduleHandle) {
  const actions = (await schedule.describe()).info.recentActions;
  const latest = actions.reduce((a, b) => (b.takenAt > a.takenAt ? b : a));
  return stack().temporal.workflow.getHandle(latest.action.workflow.workflowId);
}

describe('use case: ingesting a file insurer’s response files (D14)', function () {
  this.timeout(240_000);
  let dataDir: string;
  const insurers: FileInsurerEndorsements[] = [];
  const deps = () => ({
    em: stack().orm.em,
    temporal: stack().temporal,
    dataDir,
    taskQueue: stack().taskQueue,
  });
  const made = async (o: Parameters<typeof sentFileInsurerEndorsements>[0]) => {
    const fi = await sentFileInsurerEndorsements(o);
    insurers.push(fi);
    return fi;
  };
  const folders = (code: string) => localInsurerFolders(dataDir, code);
  const drop = (code: string, name: string, content: Buffer) => {
    mkdirSync(folders(code).inbox, { recursive: true });
    writeFileSync(path.join(folders(code).inbox, name), content);
  };

  before(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'insurer-responses-'));
  });
  after(() => {
    for (const fi of insurers.reverse()) fi.restore();
    rmSync(dataDir, { recursive: true, force: true });
  });

  describe('a response file with good, duplicate, unknown and malformed rows', () => {
    let fi: FileInsurerEndorsements;
    let theirs: string;
    let first: IngestedInboxFile;
    const NAME = 'Endorsement Status 23-11.xlsx';
    let content: Buffer;

    before(async () => {
      fi = await made({ count: 4, settings: { template: 'india-census' } });
      theirs = (await made({ count: 1 })).endorsements[0]!.id;
      const [e1, e2, e3, e4] = fi.endorsements.map((e) => e.id);
      // Decided before the file: e3 the same way (a duplicate), e4 the other way (already decided).
      expect((await sendInsurerDecision(stack().temporal, e3!, { decision: 'APPROVED' })).result).to.equal(
        'accepted',
      );
      expect((await sendInsurerDecision(stack().temporal, e4!, { decision: 'APPROVED' })).result).to.equal(
        'accepted',
      );
      content = await xlsx('Status', [
        ['Sr No', 'Reference No', 'Status', 'UHID', 'Member ID', 'Rejection Remarks'],
        ['1', e1!, 'Endorsed', 'UH-1001', 'M-1001', ''],
        ['2', e2!, 'Rejected', '', '', 'Pre-existing condition not disclosed'],
        ['3', e3!, 'Endorsed', 'UH-1003', '', ''],
        ['4', e4!, 'Rejected', '', '', 'Duplicate enrolment'],
        ['5', theirs, 'Endorsed', 'UH-9', '', ''],
        ['6', 'end_doesnotexist000000000', 'Endorsed', 'UH-8', '', ''],
        ['7', e1!, 'Pending', '', '', ''],
        ['8', e1!, 'Endorsed', 'UH-1001', 'M-1001', ''],
      ]);
      drop(fi.code, NAME, content);
      [first] = (await ingestInboxFiles(deps(), { insurerCode: fi.code })) as [IngestedInboxFile];
    });

    it('answers each row: accepted, duplicate, refused with the reason (another insurer’s endorsement is unknown)', () => {
      const [e1, e2, e3, e4] = fi.endorsements.map((e) => e.id);
      expect(first).to.include({ file_name: NAME, status: 'applied', error: null, repeat: false });
      expect(outcomes(first)).to.deep.equal([
        [2, e1, 'accepted', 'APPROVED recorded'],
        [3, e2, 'accepted', 'REJECTED recorded'],
        [4, e3, 'duplicate', 'already APPROVED'],
        [5, e4, 'refused', 'already decided with another outcome: APPROVED'],
        [6, theirs, 'refused', 'unknown reference'],
        [7, 'end_doesnotexist000000000', 'refused', 'unknown reference'],
        [8, e1, 'refused', 'malformed row (decision must be Endorsed or Rejected)'],
        [9, e1, 'duplicate', 'already APPROVED'],
      ]);
      expect(first.counts).to.deep.equal({ accepted: 2, duplicate: 2, refused: 4 });
    });

    it('writes the acknowledgement to the outbox and moves the file to inbox/processed/', () => {
      const { inbox, outbox } = folders(fi.code);
      expect(first.acknowledgement).to.equal('Endorsement-Status-23-11.xlsx.ack.csv');
      expect(readAck(path.join(outbox, first.acknowledgement))).to.deep.equal([
        ['row', 'reference', 'result', 'detail'],
        ...outcomes(first).map(([row, ...rest]) => [String(row), ...rest]),
      ]);
      expect(first.moved_to).to.equal(`processed/${NAME}`);
      expect(readdirSync(inbox)).to.deep.equal(['processed']);
      expect(readFileSync(path.join(inbox, 'processed', NAME)).equals(content)).to.equal(true);
    });

    it('applies the decisions: APPROVED with the UHID on the member row (through the API), REJECTED with its reason', async () => {
      const [e1, e2] = fi.endorsements;
      await waitForStatus(e1!.id, APPROVED);
      await waitForStatus(e2!.id, REJECTED);
      expect(await endorsementRow(e2!.id)).to.include({
        rejection_reason: 'Pre-existing condition not disclosed',
      });
      expect((await endorsementRow(theirs)).status).to.equal(SENT);

      const coverage = await fi.api.get(`/v1/policy/coverage/${e1!.employeeId}`, { token: fi.token });
      expect(coverage.status, coverage.text).to.equal(200);
      expect(coverage.body.payload.map((c: any) => [c.policy_id, c.uhid])).to.deep.equal([
        [fi.policy.id, 'UH-1001'],
      ]);
      const members = await fi.api.get(`/v1/policy/${fi.policy.id}/members`, { token: fi.token });
      expect(members.status, members.text).to.equal(200);
      const row = members.body.payload.members.find((m: any) => m.employee_id === e1!.employeeId);
      expect(row).to.include({ insurer_member_id: 'M-1001' });
      const [stored] = await sql('select uhid from policy_members where endorsement_id = ?', [e1!.id]);
      expect(stored.uhid).to.equal('UH-1001');
    });

    it('the same file ingested again changes nothing: the recorded outcome is answered', async () => {
      // Every decision so far has landed (e3 and e4 were decided through Updates before the file).
      for (const e of fi.endorsements.slice(2)) await waitForStatus(e.id, APPROVED);
      const before = await Promise.all(fi.endorsements.map((e) => endorsementRow(e.id)));
      drop(fi.code, NAME, content);
      const [again] = (await ingestInboxFiles(deps(), { insurerCode: fi.code })) as [IngestedInboxFile];
      expect(again).to.include({ status: 'applied', repeat: true, sha256: first.sha256 });
      expect(outcomes(again)).to.deep.equal(outcomes(first));
      // The earlier copy stays; the repeat is kept beside it under a time-stamped name.
      expect(again.moved_to).to.match(/^processed\/Endorsement Status 23-11\.\d{8}T\d{9}Z\.xlsx$/);
      expect(readdirSync(path.join(folders(fi.code).inbox, 'processed'))).to.have.length(2);
      // Named once it has moved aside: still the recorded outcome.
      const [named] = (await ingestInboxFiles(deps(), { insurerCode: fi.code, fileName: NAME })) as [
        IngestedInboxFile,
      ];
      expect(named).to.include({ repeat: true, moved_to: null });
      expect(await Promise.all(fi.endorsements.map((e) => endorsementRow(e.id)))).to.deep.equal(before);
      const records = await sql(
        'select count(*)::int as n from insurer_response_files where insurer_code = ?',
        [fi.code],
      );
      expect(records[0].n).to.equal(1);
    });
  });

  it('rejects a row whose UHID or member id breaks the text rules with the reason, applies the rest, and acknowledges formula-safe', async () => {
    const fi = await made({ count: 2, settings: { template: 'generic', formats: ['csv'] } });
    const [e1, e2] = fi.endorsements.map((e) => e.id);
    const name = 'hostile.csv';
    drop(
      fi.code,
      name,
      csv([
        GENERIC_HEADER,
        [e1!, 'APPROVED', '=1+1', '', ''],
        [e1!, 'APPROVED', 'UH\u202e1', '', ''],
        [e1!, 'APPROVED', 'UH\u00071', '', ''],
        [e1!, 'APPROVED', 'UH-1', '@M1', ''],
        ['=1+2', 'APPROVED', 'UH-9', '', ''],
        [e2!, 'APPROVED', 'UH-2', 'M-2', ''],
      ]),
    );
    const [file] = (await ingestInboxFiles(deps(), { insurerCode: fi.code })) as [IngestedInboxFile];
    expect(file).to.include({ status: 'applied', error: null });
    expect(outcomes(file)).to.deep.equal([
      [2, e1, 'refused', 'malformed row (uhid must not start with =, +, - or @)'],
      [3, e1, 'refused', 'malformed row (uhid must not contain bidirectional formatting characters)'],
      [4, e1, 'refused', 'malformed row (uhid must not contain control characters)'],
      [5, e1, 'refused', 'malformed row (insurer_member_id must not start with =, +, - or @)'],
      [6, '=1+2', 'refused', 'unknown reference'],
      [7, e2, 'accepted', 'APPROVED recorded'],
    ]);
    await waitForStatus(e2!, APPROVED);
    expect(await endorsementRow(e2!)).to.include({ uhid: 'UH-2', insurer_member_id: 'M-2' });
    expect(await endorsementRow(e1!)).to.include({ status: SENT, uhid: null, insurer_member_id: null });
    // The acknowledgement echoes the insurer's reference behind a quote: text, never a formula.
    const ack = readAck(path.join(folders(fi.code).outbox, `${name}.ack.csv`));
    expect(ack[5]).to.deep.equal(['6', "'=1+2", 'refused', 'unknown reference']);
    expect(ack.slice(1, 5).map((r) => r[3])).to.deep.equal(
      outcomes(file)
        .slice(0, 4)
        .map((o) => o[3]),
    );
  });

  it('refuses a malformed file whole and applies none of its rows (too many rows, no header, not a spreadsheet)', async () => {
    const fi = await made({ count: 2, settings: { template: 'generic', formats: ['csv'] } });
    const ids = fi.endorsements.map((e) => e.id);
    const good = ids.map((id) => [id, 'APPROVED', 'UH-X', '', '']);
    const filler = Array.from({ length: MAX_RESPONSE_ROWS }, () => [ids[0]!, 'APPROVED', '', '', '']);
    drop(fi.code, 'a-too-many.csv', csv([GENERIC_HEADER, ...good, ...filler]));
    drop(
      fi.code,
      'b-no-decision.csv',
      csv([
        ['reference', 'uhid'],
        [ids[0]!, 'UH-X'],
      ]),
    );
    drop(fi.code, 'c-garbage.xlsx', Buffer.from('not really a workbook'));
    drop(fi.code, 'd-notes.txt', Buffer.from('hello'));

    const files = await ingestInboxFiles(deps(), { insurerCode: fi.code });
    expect(files.map((f) => [f.file_name, f.status, f.error, f.moved_to, f.rows.length])).to.deep.equal([
      [
        'a-too-many.csv',
        'refused',
        `too many rows: ${MAX_RESPONSE_ROWS + 2} (at most ${MAX_RESPONSE_ROWS})`,
        'refused/a-too-many.csv',
        0,
      ],
      [
        'b-no-decision.csv',
        'refused',
        'missing required headers: decision (the first row must be the header row)',
        'refused/b-no-decision.csv',
        0,
      ],
      [
        'c-garbage.xlsx',
        'refused',
        'not a spreadsheet: the file is not a readable XLSX workbook',
        'refused/c-garbage.xlsx',
        0,
      ],
      [
        'd-notes.txt',
        'refused',
        'not a spreadsheet: the file name must end in .xlsx or .csv',
        'refused/d-notes.txt',
        0,
      ],
    ]);
    for (const id of ids) expect((await endorsementRow(id)).status).to.equal(SENT);
    expect(readAck(path.join(folders(fi.code).outbox, 'b-no-decision.csv.ack.csv'))).to.deep.equal([
      ['row', 'reference', 'result', 'detail'],
      [
        '',
        '',
        'refused',
        'file refused: missing required headers: decision (the first row must be the header row)',
      ],
    ]);
    expect(readdirSync(folders(fi.code).inbox)).to.deep.equal(['refused']);
    const [recorded] = await sql(
      "select count(*)::int as n from insurer_response_files where insurer_code = ? and status = 'refused'",
      [fi.code],
    );
    expect(recorded.n).to.equal(4);
  });

  it('`insurer ingest CODE FILE --json` prints each file’s counts and rows; clear errors otherwise', async () => {
    const fi = await made({ count: 2 });
    const [e1, e2] = fi.endorsements.map((e) => e.id);
    drop(
      fi.code,
      'response.csv',
      csv([
        GENERIC_HEADER,
        [e1!, 'APPROVED', 'UH-C1', 'M-C1', ''],
        [e2!, 'REJECTED', '', '', 'Not eligible'],
      ]),
    );
    drop(fi.code, 'later.csv', csv([GENERIC_HEADER, [e2!, 'REJECTED', '', '', 'Not eligible']]));
    const run = await insurerCommand(['ingest', fi.code, 'response.csv', '--json'], dataDir);
    expect(run.code, run.stderr).to.equal(0);
    const out = JSON.parse(run.stdout);
    expect(out.insurer_code).to.equal(fi.code);
    expect(out.files.map((f: any) => [f.file_name, f.status, f.counts])).to.deep.equal([
      ['response.csv', 'applied', { accepted: 2, duplicate: 0, refused: 0 }],
    ]);
    expect(out.files[0].rows).to.deep.equal([
      { row: 2, reference: e1, result: 'accepted', detail: 'APPROVED recorded' },
      { row: 3, reference: e2, result: 'accepted', detail: 'REJECTED recorded' },
    ]);
    // Only the named file was read.
    expect(readdirSync(folders(fi.code).inbox).sort()).to.deep.equal(['later.csv', 'processed']);
    await waitForStatus(e1!, APPROVED);
    const coverage = await fi.api.get(`/v1/policy/coverage/${fi.endorsements[0]!.employeeId}`, {
      token: fi.token,
    });
    expect(coverage.body.payload[0].uhid).to.equal('UH-C1');

    drop(
      fi.code,
      'bad.csv',
      csv([
        ['reference', 'uhid'],
        [e1!, 'UH-C1'],
      ]),
    );
    const refused = await insurerCommand(['ingest', fi.code, 'bad.csv', '--json'], dataDir);
    expect(refused.code, refused.stderr).to.equal(1);
    expect(JSON.parse(refused.stdout).files.map((f: any) => [f.file_name, f.status, f.error])).to.deep.equal([
      ['bad.csv', 'refused', 'missing required headers: decision (the first row must be the header row)'],
    ]);

    const unknown = await insurerCommand(['ingest', 'NO-SUCH-INSURER', '--json'], dataDir);
    expect([unknown.code, unknown.stderr.trim()]).to.deep.equal([1, 'no insurer with code NO-SUCH-INSURER']);
    const manual = await makeReferenceData(fi.client.clientId, { adapter: 'manual' });
    const [{ code: manualCode }] = await sql('select code from insurers where id = ?', [manual.insurerId]);
    const notFile = await insurerCommand(['ingest', manualCode, '--json'], dataDir);
    expect([notFile.code, notFile.stderr.trim()]).to.deep.equal([
      1,
      `insurer ${manualCode} uses the manual adapter, not file: it has no inbox`,
    ]);
    const missing = await insurerCommand(['ingest', fi.code, 'missing.csv', '--json'], dataDir);
    expect(missing.code).to.equal(1);
    expect(missing.stderr.trim()).to.equal(
      `no file missing.csv in the inbox of insurer ${fi.code} (${folders(fi.code).inbox})`,
    );
  });

  it('two ingests of one file at once (the poll and the command): each endorsement decided once, one record, one move', async () => {
    const fi = await made({ count: 3 });
    const ids = fi.endorsements.map((e) => e.id);
    drop(
      fi.code,
      'race.csv',
      csv([GENERIC_HEADER, ...ids.map((id, i) => [id, 'APPROVED', `UH-R${i}`, '', ''])]),
    );
    const [a, b] = await Promise.all([
      ingestInboxFiles(deps(), { insurerCode: fi.code, fileName: 'race.csv' }),
      ingestInboxFiles(deps(), { insurerCode: fi.code, fileName: 'race.csv' }),
    ]);
    expect(a[0]!.rows).to.deep.equal(b[0]!.rows);
    expect(a[0]!.rows.every((r) => r.result === 'accepted' || r.result === 'duplicate')).to.equal(true);
    expect([a[0]!.moved_to, b[0]!.moved_to].sort()).to.deep.equal([null, 'processed/race.csv'].sort());
    for (const id of ids) await waitForStatus(id, APPROVED);
    const [records] = await sql(
      'select count(*)::int as n from insurer_response_files where insurer_code = ?',
      [fi.code],
    );
    expect(records.n).to.equal(1);
    const members = await sql('select count(*)::int as n from policy_members where endorsement_id in (?)', [
      ids,
    ]);
    expect(members[0].n).to.equal(3);
  });

  it('a run that stops between rows leaves no record; the next run sends every row again and the decided ones answer duplicate', async () => {
    const fi = await made({ count: 3 });
    const ids = fi.endorsements.map((e) => e.id);
    drop(
      fi.code,
      'crash.csv',
      csv([GENERIC_HEADER, ...ids.map((id) => [id, 'APPROVED', `UH-${id.slice(-4)}`, '', ''])]),
    );
    // A Temporal client that is lost after two decisions went out.
    const real = stack().temporal;
    let sent = 0;
    const failing = {
      workflow: {
        getHandle: (id: string) => {
          const handle = real.workflow.getHandle(id);
          return new Proxy(handle, {
            get: (target, prop) =>
              prop === 'executeUpdate'
                ? (...args: Parameters<typeof handle.executeUpdate>) => {
                    if (++sent > 2) return Promise.reject(new Error('connection to Temporal lost'));
                    return target.executeUpdate(...args);
                  }
                : Reflect.get(target, prop),
          });
        },
      },
    } as unknown as typeof real;
    const crashed = await ingestInboxFiles({ ...deps(), temporal: failing }, { insurerCode: fi.code }).then(
      () => null,
      (e: unknown) => e,
    );
    expect((crashed as Error).message).to.equal('connection to Temporal lost');
    expect(readdirSync(folders(fi.code).inbox)).to.deep.equal(['crash.csv']);
    const none = await sql('select count(*)::int as n from insurer_response_files where insurer_code = ?', [
      fi.code,
    ]);
    expect(none[0].n).to.equal(0);
    await waitForStatus(ids[0]!, APPROVED);
    await waitForStatus(ids[1]!, APPROVED);
    expect((await endorsementRow(ids[2]!)).status).to.equal(SENT);

    const [again] = (await ingestInboxFiles(deps(), { insurerCode: fi.code })) as [IngestedInboxFile];
    expect(outcomes(again)).to.deep.equal([
      [2, ids[0], 'duplicate', 'already APPROVED'],
      [3, ids[1], 'duplicate', 'already APPROVED'],
      [4, ids[2], 'accepted', 'APPROVED recorded'],
    ]);
    await waitForStatus(ids[2]!, APPROVED);
    const members = await sql('select count(*)::int as n from policy_members where endorsement_id in (?)', [
      ids,
    ]);
    expect(members[0].n).to.equal(3);
  });

  describe('over SFTP (a real OpenSSH server)', () => {
    let server: SftpServer;
    let keyDir: string;
    before(async () => {
      server = await startSftpServer();
      keyDir = mkdtempSync(path.join(os.tmpdir(), 'insurer-key-'));
      writeFileSync(path.join(keyDir, 'id_ed25519'), server.privateKey, { mode: 0o600 });
      mkdirSync(path.join(server.remoteDir, 'to-insurer'));
      mkdirSync(path.join(server.remoteDir, 'from-insurer'));
    });
    after(async () => {
      // Later inbox polls of this run must not reach a server that is gone.
      for (const fi of insurers)
        await sql(
          "update insurers set adapter = 'manual' where id = ? and adapter_settings->'transport'->>'type' = 'sftp'",
          [fi.insurerId],
        );
      await closeSftpServer(server, keyDir);
    });

    it('reads the response from the remote inbox, acknowledges to the remote outbox, moves it to processed/', async () => {
      const fi = await made({
        count: 2,
        settings: {
          template: 'generic',
          transport: {
            type: 'sftp',
            host: server.host,
            port: server.port,
            username: server.username,
            private_key_path: path.join(keyDir, 'id_ed25519'),
            host_key_fingerprint: server.hostKeySha256,
            remote_outbox_dir: path.join(server.remoteDir, 'to-insurer'),
            remote_inbox_dir: path.join(server.remoteDir, 'from-insurer'),
          },
        },
      });
      const [e1, e2] = fi.endorsements.map((e) => e.id);
      const inbox = path.join(server.remoteDir, 'from-insurer');
      writeFileSync(
        path.join(inbox, 'resp.csv'),
        csv([GENERIC_HEADER, [e1!, 'APPROVED', 'UH-S1', '', ''], [e2!, 'REJECTED', '', '', 'Over age']]),
      );
      writeFileSync(path.join(inbox, '.resp2.csv.part'), 'an upload in progress');

      const files = await ingestInboxFiles(deps(), { insurerCode: fi.code });
      expect(files.map((f) => [f.file_name, f.moved_to, f.counts])).to.deep.equal([
        ['resp.csv', 'processed/resp.csv', { accepted: 2, duplicate: 0, refused: 0 }],
      ]);
      expect(readAck(path.join(server.remoteDir, 'to-insurer', 'resp.csv.ack.csv'))).to.deep.equal([
        ['row', 'reference', 'result', 'detail'],
        ['2', e1, 'accepted', 'APPROVED recorded'],
        ['3', e2, 'accepted', 'REJECTED recorded'],
      ]);
      expect(readdirSync(inbox).sort()).to.deep.equal(['.resp2.csv.part', 'processed']);
      expect(readdirSync(path.join(inbox, 'processed'))).to.deep.equal(['resp.csv']);
      await waitForStatus(e1!, APPROVED);
      await waitForStatus(e2!, REJECTED);
      const [member] = await sql('select uhid from policy_members where endorsement_id = ?', [e1]);
      expect(member.uhid).to.equal('UH-S1');
    });
  });

  describe('the insurer-inbox Schedule', () => {
    const workerData = () => stack().config.dataDir;
    after(async () => {
      await deletePeriodicSchedules(stack().temporal);
      for (const fi of insurers)
        rmSync(path.join(workerData(), 'insurers', fi.code), { recursive: true, force: true });
    });

    it('polls every file insurer’s inbox: a settled file is ingested, one still changing is left for the next tick', async () => {
      const fi = await made({ count: 1 });
      const [e1] = fi.endorsements.map((e) => e.id);
      const { inbox, outbox } = localInsurerFolders(workerData(), fi.code);
      mkdirSync(inbox, { recursive: true });
      const settled = path.join(inbox, 'settled.csv');
      writeFileSync(settled, csv([GENERIC_HEADER, [e1!, 'APPROVED', 'UH-P1', '', '']]));
      const twoMinutesAgo = new Date(Date.now() - 120_000);
      utimesSync(settled, twoMinutesAgo, twoMinutesAgo);
      writeFileSync(path.join(inbox, 'uploading.csv'), csv([GENERIC_HEADER]));

      const schedule = await triggerPass(stack().temporal, stack().taskQueue, INSURER_INBOX_SCHEDULE_ID);
      await waitForStatus(e1!, APPROVED);
      const [member] = await sql('select uhid from policy_members where endorsement_id = ?', [e1]);
      expect(member.uhid).to.equal('UH-P1');
      const acked = path.join(outbox, 'settled.csv.ack.csv');
      for (let i = 0; i < 100 && !existsSync(path.join(inbox, 'processed', 'settled.csv')); i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(readdirSync(inbox).sort()).to.deep.equal(['processed', 'uploading.csv']);
      expect(readAck(acked)[1]).to.deep.equal(['2', e1, 'accepted', 'APPROVED recorded']);
      // The pass polled every file insurer of the run and counted what it did.
      const pass = await latestRun(schedule).then((run) => run.result());
      expect(pass).to.include({ files: 1, refused_files: 0, accepted: 1, duplicate: 0, refused: 0 });
      const [fileInsurers] = await sql(
        "select count(distinct code)::int as n from insurers where adapter = 'file'",
      );
      expect(pass.insurers).to.equal(fileInsurers.n).and.to.be.greaterThan(3);
    });

    it('an insurer whose inbox fails does not hold up the others; the pass then fails, visibly', async () => {
      // No endorsements: its cut-off could never deliver them. Only its inbox matters here.
      const broken = await made({
        count: 0,
        settings: {
          transport: {
            type: 'sftp',
            host: '127.0.0.1',
            port: 1,
            username: 'insurer',
            private_key_path: path.join(dataDir, 'no-such-key'),
            host_key_fingerprint: `SHA256:${'A'.repeat(43)}`,
            remote_outbox_dir: '/outbox',
            remote_inbox_dir: '/inbox',
          },
        },
      });
      try {
        const fi = await made({ count: 1 });
        const [e1] = fi.endorsements.map((e) => e.id);
        const { inbox } = localInsurerFolders(workerData(), fi.code);
        mkdirSync(inbox, { recursive: true });
        const settled = path.join(inbox, 'settled.csv');
        writeFileSync(settled, csv([GENERIC_HEADER, [e1!, 'APPROVED', 'UH-P2', '', '']]));
        utimesSync(settled, new Date(Date.now() - 120_000), new Date(Date.now() - 120_000));

        const schedule = await triggerPass(stack().temporal, stack().taskQueue, INSURER_INBOX_SCHEDULE_ID);
        await waitForStatus(e1!, APPROVED);
        const failure = await (await latestRun(schedule)).result().then(
          () => null,
          (err: unknown) => err,
        );
        expect(failure).to.be.instanceOf(WorkflowFailedError);
        expect((failure as WorkflowFailedError).cause?.message).to.equal(`inbox of ${broken.code} failed`);
      } finally {
        await sql("update insurers set adapter = 'manual' where id = ?", [broken.insurerId]);
      }
    });
  });
});
