import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { ScheduleNotFoundError, WorkflowFailedError } from '@temporalio/client';
import { expect } from 'chai';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import YAML from 'yaml';
import { sendInsurerDecision } from '../../adapters/decisions.js';
import { loadPartners, loadReferenceData } from '../../usecases/reference-load.js';
import { loadFileSchema } from '../../domain/schemas/reference-load.js';
import { cutOffDate, cutOffTime, insurerFileName } from '../../domain/insurer-exchange/file.js';
import {
  fileInsurerSettings,
  flushInsurer,
  markCutOffSent,
} from '../../usecases/insurer-exchange/cut-off.js';
import { CUT_OFF_TIME_ZONE, deliverCutOff } from '../../usecases/insurer-exchange/files.js';
import { syncInsurerCutOffSchedules } from '../../usecases/insurer-exchange/schedules.js';
import { cutOffWorkflowId, type CutOffResult } from '../../workflows/insurer-cut-off/contract.js';
import { cutOffDeliveredSignal } from '../../workflows/endorsement/contract.js';
import { SLA_WATCH_TOLD } from '../../workflows/endorsement/patches.js';
import { makeClient, sql } from '../support/factories.js';
import { recordHistory } from '../support/record-history.js';
import { closeSftpServer, startSftpServer, type SftpServer } from '../support/sftp-server.js';
import { stack, TEST_KEYS } from '../support/stack.js';
import {
  auditActions,
  createEndorsement,
  decide,
  endorsementApi,
  endorsementRow,
  historySteps,
  replaysWhole,
  sentToInsurer,
  slaWatch,
  waitFor,
  waitForStatus,
  workflowHandle,
  workflowState,
} from './endorsement-support.js';
import { checkCdLedgersAfterEachTest } from '../support/cd-ledger-check.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const POLICY = 'FILE/GH/2026/0001';

/** A load file (D12) with one `file` insurer over SFTP in the india-census template, XLSX and CSV. */
const loadFile = (code: string, server: SftpServer, keyFile: string) => `
insurers:
  - code: ${code}
    name: File Insurer
    logo_url: https://assets.example.com/file.png
    adapter: file
    adapter_settings:
      template: india-census
      formats: [xlsx, csv]
      cut_off_time: '17:00'
      transport:
        type: sftp
        host: ${server.host}
        port: ${server.port}
        username: ${server.username}
        private_key_path: ${keyFile}
        host_key_fingerprint: ${server.hostKeySha256}
        remote_outbox_dir: ${server.remoteDir}
        remote_inbox_dir: ${server.remoteDir}
tpas:
  - { code: MEDI, name: Medi Assist }
products:
  - { code: ${code}-GH, name: File Group Health, category: Group Health, insurer: ${code} }
policies:
  - policy_number: ${POLICY}
    insurer: ${code}
    product: ${code}-GH
    tpa: MEDI
    net_premium: 100000
    gross_premium: 118000
    coverage_type: COVERAGE_TYPE_ES
    type: POLICY_TYPE_FAMILY_FLOATER
    status: POLICY_STATUS_ACTIVE
    start_date: '2026-04-01'
    end_date: '2027-03-31'
    slabs:
      - { sum_insured: 300000, annual_premium: 3650 }
    cd_balance: 500000
employees:
  - employee_id: FILE-001
    name: Kavya Menon
    email: kavya.menon@employer.example.com
    phone_number: '+919800000200'
    date_of_birth: '1991-07-14'
    gender: GENDER_FEMALE
    date_of_joining: '2021-01-04'
    status: EMPLOYEE_STATUS_ACTIVE
    dependents:
      - { name: Rohan Menon, relationship: SPOUSE, date_of_birth: '1989-02-03', gender: GENDER_MALE }
      - { name: Tara Menon, relationship: CHILD, date_of_birth: '2020-10-21', gender: GENDER_FEMALE }
`;

async function readXlsx(content: Buffer): Promise<unknown[][]> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(content as unknown as ArrayBuffer);
  const rows: unknown[][] = [];
  book.worksheets[0]!.eachRow((row) => rows.push((row.values as unknown[]).slice(1)));
  return rows;
}

const queued = (id: string) =>
  waitFor(
    async () => (await sql('select cut_off_queued_at from endorsements where id = ?', [id]))[0],
    (row) => row?.cut_off_queued_at != null,
    `${id} to wait for its cut-off`,
  );

describe('a file insurer end to end (D14)', function () {
  checkCdLedgersAfterEachTest();
  this.timeout(120_000);
  let server: SftpServer;
  let keyDir: string;
  let keyFile: string;

  before(async () => {
    server = await startSftpServer();
    keyDir = mkdtempSync(path.join(os.tmpdir(), 'file-insurer-key-'));
    keyFile = path.join(keyDir, 'id_ed25519');
    writeFileSync(keyFile, server.privateKey, { mode: 0o600 });
  });
  after(async () => {
    await closeSftpServer(server, keyDir);
  });
  afterEach(async () => {
    await server.start();
  });

  /** A new client of a new file insurer code (cut-offs span clients, so each test has its own code). */
  async function loadedWorld() {
    const code = `FI${randomBytes(3).toString('hex').toUpperCase()}`;
    const client = await makeClient();
    const file = loadFileSchema.parse(YAML.parse(loadFile(code, server, keyFile)));
    const loaded = await loadReferenceData(stack().orm.em.fork(), client.clientId, file);
    return {
      code,
      client,
      token: client.token(),
      api: await endorsementApi(),
      policy: { id: loaded.policies[POLICY]!, policyNumber: POLICY },
      employee: { id: loaded.employees['FILE-001']!, name: 'Kavya Menon', employeeCode: 'FILE-001' },
    };
  }

  const flush = (code: string, now = new Date()) =>
    flushInsurer(
      { em: stack().orm.em.fork(), temporal: stack().temporal, taskQueue: stack().taskQueue },
      code,
      now,
    );
  const filesOf = (code: string) =>
    readdirSync(server.remoteDir)
      .filter((f) => f.startsWith(`${code}_`))
      .sort();

  it('waits PENDING for the cut-off; the flush delivers the file in the template; SENT_TO_INSURER after', async () => {
    const world = await loadedWorld();
    const id = await createEndorsement(world, { sum_insured: 300000 });
    await queued(id);
    // Reviewed, waiting: neither submitted nor in any file; an insurer decision is refused meanwhile.
    await sleep(500);
    expect((await endorsementRow(id)).status).to.equal('ENDORSEMENT_STATUS_PENDING');
    expect(await workflowState(id)).to.include({ status: 'ENDORSEMENT_STATUS_PENDING', submitted: false });
    expect(filesOf(world.code)).to.deep.equal([]);
    expect(await sendInsurerDecision(stack().temporal, id, { decision: 'APPROVED' })).to.deep.equal({
      result: 'refused',
      detail: 'not yet submitted to the insurer',
    });

    const result = await flush(world.code);
    const at = new Date(result.cut_off);
    const name = (format: 'xlsx' | 'csv') =>
      insurerFileName(
        {
          insurerCode: world.code,
          policyNumber: POLICY,
          cutOffDate: cutOffDate(at, CUT_OFF_TIME_ZONE),
          cutOffTime: cutOffTime(at, CUT_OFF_TIME_ZONE),
        },
        format,
      );
    expect(result.files.map((f) => [f.file_name, f.policy_number, f.rows, f.endorsement_ids])).to.deep.equal([
      [name('xlsx'), POLICY, 2, [id]],
      [name('csv'), POLICY, 2, [id]],
    ]);
    expect(result.sent).to.equal(1);
    expect(filesOf(world.code)).to.deep.equal([name('csv'), name('xlsx')].sort());

    // COVERAGE_TYPE_ES: the employee and the spouse; the child is not covered, so not listed.
    // prettier-ignore
    const expected = [
      ['Sr No', 'Policy No', 'Employee Code', 'Member Name', 'Relationship', 'Gender', 'DOB (DD/MM/YYYY)', 'Sum Insured', 'Effective Date', 'Endorsement Type', 'Reference No'],
      [1, POLICY, 'FILE-001', 'Kavya Menon', 'Self', 'F', '14/07/1991', '300000', '01/04/2026', 'Addition', id],
      [2, POLICY, 'FILE-001', 'Rohan Menon', 'Spouse', 'M', '03/02/1989', '300000', '01/04/2026', 'Addition', id],
    ];
    expect(await readXlsx(readFileSync(path.join(server.remoteDir, name('xlsx'))))).to.deep.equal(expected);
    const csv: string[][] = parse(readFileSync(path.join(server.remoteDir, name('csv'))));
    expect(csv).to.deep.equal(expected.map((r) => r.map(String)));

    // Moved by the cut-off's mark, after delivery, with its audit entry and event; the workflow follows.
    expect((await endorsementRow(id)).status).to.equal('ENDORSEMENT_STATUS_SENT_TO_INSURER');
    expect(await auditActions(id)).to.include('sent_to_insurer');
    const [event] = await sql('select payload from webhook_events where dedupe_key = ? ', [
      `endorsement.status_changed:${id}:ENDORSEMENT_STATUS_SENT_TO_INSURER`,
    ]);
    expect(event.payload).to.include({ old_status: 'ENDORSEMENT_STATUS_PENDING', endorsement_id: id });
    await waitFor(
      () => workflowState(id),
      (s) => s.status === 'ENDORSEMENT_STATUS_SENT_TO_INSURER' && s.submitted,
      'the workflow to learn of the delivery',
    );
    expect(await decide(id, { decision: 'APPROVED', uhid: 'UHID-F-1' })).to.include({ result: 'accepted' });
    expect(await waitForStatus(id, 'ENDORSEMENT_STATUS_APPROVED')).to.include({ uhid: 'UHID-F-1' });
    await workflowHandle(id).result();

    // Determinism: both runs replay against the workflow code (decoded with this run's key).
    const cutOffId = cutOffWorkflowId(world.code, at);
    await recordHistory(workflowHandle(id).workflowId, 'endorsement-file-insurer-approved');
    await recordHistory(cutOffId, 'cutoff-delivered');
    for (const workflowId of [workflowHandle(id).workflowId, cutOffId]) await replaysWhole(workflowId);
  });

  /** An endorsement of a world whose insurer's SLA is 5 days, reviewed and waiting for the cut-off. */
  async function waitingWithSla() {
    const world = await loadedWorld();
    await sql(`update insurers set adapter_settings = adapter_settings || '{"sla_days": 5}' where code = ?`, [
      world.code,
    ]);
    const id = await createEndorsement(world, { sum_insured: 300000 });
    await queued(id);
    return { id, code: world.code };
  }
  /** Approves it, then replays its whole history against the workflow code. */
  async function approveAndReplay(id: string) {
    expect(await decide(id, { decision: 'APPROVED', uhid: `UHID-${id}` })).to.include({ result: 'accepted' });
    await workflowHandle(id).result();
    await replaysWhole(workflowHandle(id).workflowId);
  }

  it("the cut-off's signal says who has it and since when: the SLA watch starts from it, reading nothing back", async () => {
    const { id, code } = await waitingWithSla();
    expect(await flush(code)).to.include({ sent: 1 });
    await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
    const row = await sentToInsurer(id);
    // The instant the cut-off's statement moved the row, to the millisecond; the insurer's own 5 days.
    expect(await slaWatch(id)).to.deep.equal({
      insurerId: row.insurer_id,
      submittedAt: row.sent_at,
      dueInDays: 5,
    });
    const steps = await historySteps(id);
    expect(steps.local).to.deep.equal(['reviewHoldAndRoute']);
    expect(steps.patches).to.include(SLA_WATCH_TOLD);
    await approveAndReplay(id);
    expect((await historySteps(id)).local).to.deep.equal(['reviewHoldAndRoute', 'applyApproval']);
  });

  it("a cut-off's signal from before it said who has it: the SLA watch reads it (a local activity), as then", async () => {
    const { id } = await waitingWithSla();
    // What an older cut-off did: the row moved by its statement, the signal with the instant alone.
    await sql(
      `update endorsements set status = 'ENDORSEMENT_STATUS_SENT_TO_INSURER', sent_to_insurer_at = now() where id = ?`,
      [id],
    );
    await workflowHandle(id).signal(cutOffDeliveredSignal, { cutOff: new Date().toISOString() });
    const row = await sentToInsurer(id);
    const watch = await slaWatch(id);
    expect(watch).to.include({ insurerId: row.insurer_id, dueInDays: 5 });
    // Read by the database's clock right after the signal, so not before the row moved.
    expect(watch.submittedAt >= row.sent_at, `${watch.submittedAt} after ${row.sent_at}`).to.equal(true);
    const steps = await historySteps(id);
    expect(steps.local).to.deep.equal(['reviewHoldAndRoute', 'readEndorsementInsurer']);
    expect(steps.patches).to.not.include(SLA_WATCH_TOLD);
    await approveAndReplay(id);
  });

  it('with the SFTP server down at the cut-off: retried, stuck on time, delivered once when it returns', async () => {
    const world = await loadedWorld();
    world.api = await endorsementApi({ config: { ...stack().config, ENDORSEMENT_STUCK_AFTER: '2s' } });
    const id = await createEndorsement(world, { sum_insured: 300000 });
    await queued(id);
    await server.stop();
    const now = new Date();
    const flushing = flush(world.code, now);
    const cutOff = new Date(Math.ceil(now.getTime() / 1000) * 1000);
    const batch = stack().temporal.workflow.getHandle(cutOffWorkflowId(world.code, cutOff));
    await waitFor(
      // Not found until the flush has checked the code and started it.
      async () => (await batch.describe().catch(() => null))?.raw.pendingActivities?.[0]?.attempt ?? 0,
      (attempt) => attempt >= 3,
      'the delivery to be retried',
    );
    const stuck = await waitFor(
      () => workflowState(id),
      (s) => s.stuck,
      'the endorsement to be stuck',
    );
    expect(stuck.status).to.equal('ENDORSEMENT_STATUS_PENDING');
    expect((await endorsementRow(id)).status).to.equal('ENDORSEMENT_STATUS_PENDING');
    expect(filesOf(world.code)).to.deep.equal([]);

    await server.start();
    const result: CutOffResult = await flushing;
    expect(result.files.map((f) => f.endorsement_ids)).to.deep.equal([[id], [id]]);
    expect(filesOf(world.code)).to.have.length(2);
    expect((await endorsementRow(id)).status).to.equal('ENDORSEMENT_STATUS_SENT_TO_INSURER');

    // Nothing sent twice: a later cut-off finds nothing to carry, the status moved once.
    await sleep(1_100);
    const again = await flush(world.code);
    expect(again.files).to.deep.equal([]);
    expect(filesOf(world.code)).to.have.length(2);
    expect((await auditActions(id)).filter((a) => a === 'sent_to_insurer')).to.have.length(1);
    // Still stuck (past the timer from review) until the insurer decides.
    expect(await workflowState(id)).to.include({ stuck: true, status: 'ENDORSEMENT_STATUS_SENT_TO_INSURER' });
    await decide(id, { decision: 'REJECTED', rejection_reason: 'duplicate member' });
    await waitForStatus(id, 'ENDORSEMENT_STATUS_REJECTED');
    expect(await workflowState(id)).to.include({ stuck: false });
  });

  it('a delivery refused for good (wrong pinned host key) fails the cut-off and gives the endorsement back', async () => {
    const world = await loadedWorld();
    const id = await createEndorsement(world, { sum_insured: 300000 });
    await queued(id);
    const pin = (fingerprint: string) =>
      sql(
        `update insurers set adapter_settings = jsonb_set(adapter_settings, '{transport,host_key_fingerprint}', ?::jsonb)
          where code = ?`,
        [JSON.stringify(fingerprint), world.code],
      );
    await pin(server.otherHostKeySha256);
    const failed = await flush(world.code).then(
      () => null,
      (err: unknown) => err,
    );
    expect(failed).to.be.instanceOf(WorkflowFailedError);
    const cause = (failed as WorkflowFailedError).cause?.cause as Error | undefined;
    expect(String(cause?.message)).to.contain('not the pinned');
    const [row] = await sql('select status, cut_off_at from endorsements where id = ?', [id]);
    expect(row).to.deep.equal({ status: 'ENDORSEMENT_STATUS_PENDING', cut_off_at: null });
    expect(filesOf(world.code)).to.deep.equal([]);

    // The operator fixes the settings: the next cut-off carries it.
    await pin(server.hostKeySha256);
    await sleep(1_100);
    const result = await flush(world.code);
    expect(result.files.map((f) => f.endorsement_ids)).to.deep.equal([[id], [id]]);
    expect((await endorsementRow(id)).status).to.equal('ENDORSEMENT_STATUS_SENT_TO_INSURER');
  });

  it('a cancel while waiting for the cut-off cancels it; the cut-off then carries nothing', async () => {
    const world = await loadedWorld();
    const id = await createEndorsement(world, { sum_insured: 300000 });
    await queued(id);
    const res = await world.api.post(`/v1/policy/endorsements/${id}/cancel`, { token: world.token });
    expect(res.status).to.equal(200);
    expect(res.body.payload.endorsement.status).to.equal('ENDORSEMENT_STATUS_CANCELLED');
    const final = await workflowHandle(id).result();
    expect(final).to.include({ status: 'ENDORSEMENT_STATUS_CANCELLED', submitted: false });
    const result = await flush(world.code);
    expect(result).to.include({ sent: 0 });
    expect(result.files).to.deep.equal([]);
    expect(filesOf(world.code)).to.deep.equal([]);
  });

  it("a cancel after delivery cancels at once; the next cut-off's file withdraws it with the cancellation word", async () => {
    const world = await loadedWorld();
    const id = await createEndorsement(world, { sum_insured: 300000 });
    await queued(id);
    const first = await flush(world.code);
    expect(first).to.deep.include({ sent: 1, withdrawn: [] });
    await waitFor(
      () => workflowState(id),
      (s) => s.status === 'ENDORSEMENT_STATUS_SENT_TO_INSURER',
      'the workflow to learn of the delivery',
    );
    const res = await world.api.post(`/v1/policy/endorsements/${id}/cancel`, { token: world.token });
    expect(res.status).to.equal(200);
    expect(res.body.payload.endorsement.status).to.equal('ENDORSEMENT_STATUS_CANCELLED');
    expect(await workflowHandle(id).result()).to.include({
      status: 'ENDORSEMENT_STATUS_CANCELLED',
      submitted: true,
    });
    expect(await auditActions(id)).to.deep.equal(['create', 'sent_to_insurer', 'cancel']);

    // The next cut-off carries the withdrawal: the rows the insurer had, as "Cancellation".
    await sleep(1_100);
    const next = await flush(world.code);
    expect(next).to.deep.include({ sent: 0, withdrawn: [id] });
    expect(next.files.map((f) => [f.format, f.rows, f.endorsement_ids, f.withdrawal_ids])).to.deep.equal([
      ['xlsx', 2, [], [id]],
      ['csv', 2, [], [id]],
    ]);
    const csv: string[][] = parse(readFileSync(path.join(server.remoteDir, next.files[1]!.file_name)));
    expect(csv.slice(1).map((r) => [r[3], r[9], r[10]])).to.deep.equal([
      ['Kavya Menon', 'Cancellation', id],
      ['Rohan Menon', 'Cancellation', id],
    ]);
    expect(await auditActions(id)).to.deep.equal(['create', 'sent_to_insurer', 'cancel', 'withdrawal_sent']);
    expect((await endorsementRow(id)).status).to.equal('ENDORSEMENT_STATUS_CANCELLED');
    // Withdrawn once: a later cut-off carries nothing.
    await sleep(1_100);
    expect((await flush(world.code)).files).to.deep.equal([]);
  });

  it('a cancel after the file was written but before the mark: the mark moves only PENDING rows', async () => {
    const world = await loadedWorld();
    const id = await createEndorsement(world, { sum_insured: 300000 });
    await queued(id);
    const em = stack().orm.em.fork();
    const cutOff = new Date(Date.now() + 1_000);
    const settings = await fileInsurerSettings(em, world.code);
    // The batch's first steps: claimed and delivered.
    const files = await deliverCutOff(
      { em, dataDir: stack().config.dataDir },
      {
        insurerCode: world.code,
        settings,
        cutOff,
      },
    );
    expect(files.map((f) => f.endorsement_ids)).to.deep.equal([[id], [id]]);
    // The client cancels before the mark.
    const res = await world.api.post(`/v1/policy/endorsements/${id}/cancel`, { token: world.token });
    expect(res.body.payload.endorsement.status).to.equal('ENDORSEMENT_STATUS_CANCELLED');
    const mark = await markCutOffSent({ em, temporal: stack().temporal }, { cutOff, endorsementIds: [id] });
    expect(mark).to.deep.include({ moved: [], already: [] });
    expect((await endorsementRow(id)).status).to.equal('ENDORSEMENT_STATUS_CANCELLED');
    expect(await auditActions(id)).to.not.include('sent_to_insurer');
    // The insurer has the row (docs/insurers/README.md says so): its answer for it is refused as cancelled, and
    // the mark queued its withdrawal for the next cut-off.
    expect(filesOf(world.code)).to.have.length(2);
    expect(await decide(id, { decision: 'APPROVED' })).to.include({ result: 'refused' });
    await sleep(1_100);
    const next = await flush(world.code);
    expect(next.withdrawn).to.deep.equal([id]);
    expect(next.files.map((f) => f.withdrawal_ids)).to.deep.equal([[id], [id]]);
  });

  it('`insurer flush CODE --json` prints the files (ids and counts, no personal data); refuses other codes', async () => {
    const world = await loadedWorld();
    const id = await createEndorsement(world, { sum_insured: 300000 });
    await queued(id);
    const run = async (...args: string[]) => {
      try {
        const { stdout, stderr } = await promisify(execFile)(
          process.execPath,
          ['--import', 'tsx', 'scripts/insurer.ts', ...args],
          {
            cwd: ROOT,
            env: {
              ...process.env,
              ...stack().databaseEnv,
              TEMPORAL_ADDRESS: stack().temporalAddress,
              TEMPORAL_TASK_QUEUE: stack().taskQueue,
              PAYLOAD_ENCRYPTION_KEYS: TEST_KEYS.PAYLOAD_ENCRYPTION_KEYS,
              LOG_LEVEL: 'silent',
            },
          },
        );
        return { code: 0, out: stdout, err: stderr };
      } catch (e) {
        const failure = e as { code: number; stdout: string; stderr: string };
        return { code: failure.code, out: failure.stdout, err: failure.stderr };
      }
    };
    const res = await run('flush', world.code, '--json');
    expect(res.code, res.err).to.equal(0);
    const printed = JSON.parse(res.out) as CutOffResult;
    expect(printed).to.include({ insurer_code: world.code, sent: 1 });
    expect(printed.cancelled_meanwhile).to.deep.equal([]);
    const destination = `sftp://${server.username}@${server.host}:${server.port}${server.remoteDir}`;
    expect(
      printed.files.map((f) => [
        f.format,
        f.policy_id,
        f.policy_number,
        f.rows,
        f.endorsement_ids,
        f.destination,
      ]),
    ).to.deep.equal([
      ['xlsx', world.policy.id, POLICY, 2, [id], destination],
      ['csv', world.policy.id, POLICY, 2, [id], destination],
    ]);
    expect(filesOf(world.code)).to.deep.equal(printed.files.map((f) => f.file_name).sort());
    expect(res.out).to.not.match(/Kavya|Rohan|1991-07-14|14\/07\/1991/);

    const unknown = await run('flush', 'NOSUCHCODE', '--json');
    expect([unknown.code, unknown.err.trim()]).to.deep.equal([2, 'no insurer with code NOSUCHCODE']);
    const manualCode = `MN${randomBytes(3).toString('hex').toUpperCase()}`;
    await sql(
      'update insurers set code = ?, adapter = ? where id = (select insurer_id from policies where id = ?)',
      [manualCode, 'manual', world.policy.id],
    );
    const manual = await run('flush', manualCode);
    expect([manual.code, manual.err.trim()]).to.deep.equal([
      2,
      `insurer ${manualCode} uses the manual adapter, not file: nothing to flush`,
    ]);
  });
});

describe("a file insurer's cut-off Schedule (D14)", function () {
  this.timeout(60_000);
  const code = `SC${randomBytes(3).toString('hex').toUpperCase()}`;
  const scheduleId = `insurer-cut-off-${code}`;
  let insurerId: string;
  // Every file insurer of this run got a Schedule from the sync: none outlives the test.
  const made = new Set<string>([scheduleId]);
  after(async () => {
    for (const id of made) {
      await stack()
        .temporal.schedule.getHandle(id)
        .delete()
        .catch(() => undefined);
    }
  });

  const sync = () => syncInsurerCutOffSchedules(stack().temporal, stack().orm.em.fork(), stack().taskQueue);
  const described = async () => {
    const d = await stack().temporal.schedule.getHandle(scheduleId).describe();
    const day = d.spec.calendars?.[0];
    return {
      at: [day?.hour?.[0]?.start, day?.minute?.[0]?.start, d.spec.timezone],
      workflowType: d.action.workflowType,
      workflowId: d.action.type === 'startWorkflow' ? d.action.workflowId : null,
      overlap: d.policies.overlap,
    };
  };

  it('is created at the insurer cut_off_time in Asia/Kolkata, follows a change, and goes with the adapter', async () => {
    const client = await makeClient();
    const raw = {
      insurers: [
        {
          code,
          name: 'Scheduled File Insurer',
          logo_url: 'https://assets.example.com/s.png',
          adapter: 'file',
          adapter_settings: { cut_off_time: '18:30' },
        },
      ],
    };
    const loadedPath = path.join(mkdtempSync(path.join(os.tmpdir(), 'cut-off-load-')), 'insurers.json');
    writeFileSync(loadedPath, JSON.stringify(raw));
    const file = loadFileSchema.parse(raw);
    insurerId = (await loadReferenceData(stack().orm.em.fork(), client.clientId, file)).insurers[code]!;
    const first = await sync();
    for (const e of first.ensured) made.add(e.schedule_id);
    expect(first.ensured).to.deep.include({ schedule_id: scheduleId, cut_off_time: '18:30' });
    expect(await described()).to.deep.equal({
      at: [18, 30, 'Asia/Kolkata'],
      workflowType: 'insurerCutOffWorkflow',
      workflowId: scheduleId,
      overlap: 'ALLOW_ALL',
    });
    // Again: the same Schedule, updated in place.
    await sync();
    expect((await described()).at).to.deep.equal([18, 30, 'Asia/Kolkata']);

    // `admin load` brings the Schedules in line after it writes insurers (Temporal reachable).
    const reloaded = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'scripts/admin.ts', 'load', loadedPath, '--client', client.clientId, '--json'],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          ...stack().databaseEnv,
          TEMPORAL_ADDRESS: stack().temporalAddress,
          TEMPORAL_TASK_QUEUE: stack().taskQueue,
          PAYLOAD_ENCRYPTION_KEYS: TEST_KEYS.PAYLOAD_ENCRYPTION_KEYS,
          LOG_LEVEL: 'silent',
        },
      },
    );
    const printed = JSON.parse(reloaded.stdout);
    expect(printed.cut_off_schedules.ensured).to.deep.include({
      schedule_id: scheduleId,
      cut_off_time: '18:30',
    });
    for (const e of printed.cut_off_schedules.ensured) made.add(e.schedule_id);

    await sql(
      `update insurers set adapter_settings = jsonb_set(adapter_settings, '{cut_off_time}', '"07:15"') where id = ?`,
      [insurerId],
    );
    await stack().temporal.schedule.getHandle(scheduleId).pause('insurer holiday');
    await sync();
    expect((await described()).at).to.deep.equal([7, 15, 'Asia/Kolkata']);
    // An operator's pause stays; the note follows the new time.
    const state = (await stack().temporal.schedule.getHandle(scheduleId).describe()).state;
    expect(state.paused).to.equal(true);
    expect(state.note).to.contain('07:15 Asia/Kolkata');

    await sql("update insurers set adapter = 'manual', adapter_settings = '{}' where id = ?", [insurerId]);
    const last = await sync();
    expect(last.removed).to.include(scheduleId);
    const gone = await stack()
      .temporal.schedule.getHandle(scheduleId)
      .describe()
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect(gone).to.be.instanceOf(ScheduleNotFoundError);
  });
});

describe("the insurers' guide walkthrough: the demo file insurer over the local transport (D14)", function () {
  this.timeout(60_000);
  const outbox = () => path.join(stack().config.dataDir, 'insurers', 'CARE', 'outbox');
  // Only the files this test wrote: the folder may hold a local `npm start`'s demo files.
  const written: string[] = [];
  after(() => {
    for (const name of written) rmSync(path.join(outbox(), name), { force: true });
  });

  it('an endorsement on CARE waits PENDING; flush writes XLSX and CSV to $DATA_DIR/insurers/CARE/outbox', async () => {
    const client = await makeClient();
    const read = (name: string) =>
      loadFileSchema.parse(YAML.parse(readFileSync(path.join(ROOT, 'data', name), 'utf8')));
    await loadPartners(stack().orm.em.fork(), read('partners.yaml'));
    const loaded = await loadReferenceData(stack().orm.em.fork(), client.clientId, read('demo.yaml'));
    const world = {
      client,
      token: client.token(),
      api: await endorsementApi(),
      policy: { id: loaded.policies['CARE/GH/2026/000342']!, policyNumber: 'CARE/GH/2026/000342' },
      employee: { id: loaded.employees['DEMO-001']!, name: 'Aarav Sharma', employeeCode: 'DEMO-001' },
    };
    const id = await createEndorsement(world);
    await queued(id);
    expect((await endorsementRow(id)).status).to.equal('ENDORSEMENT_STATUS_PENDING');

    const result = await flushInsurer(
      { em: stack().orm.em.fork(), temporal: stack().temporal, taskQueue: stack().taskQueue },
      'CARE',
      new Date(),
    );
    written.push(...result.files.map((f) => f.file_name));
    const mine = result.files.filter((f) => f.endorsement_ids.includes(id));
    expect(mine.map((f) => [f.format, f.destination, f.rows])).to.deep.equal([
      ['xlsx', outbox(), 2],
      ['csv', outbox(), 2],
    ]);
    for (const f of mine) expect(f.file_name).to.match(/^CARE_CARE-GH-2026-000342_\d{8}_\d{6}\.(xlsx|csv)$/);
    const rows = await readXlsx(readFileSync(path.join(outbox(), mine[0]!.file_name)));
    expect(rows.map((r) => [r[3], r[4], r[10]])).to.deep.equal([
      ['Member Name', 'Relationship', 'Reference No'],
      ['Aarav Sharma', 'Self', id],
      ['Spouse of Aarav', 'Spouse', id],
    ]);
    expect((await endorsementRow(id)).status).to.equal('ENDORSEMENT_STATUS_SENT_TO_INSURER');
  });
});
