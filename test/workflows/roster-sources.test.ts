import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { localInsurerFolders } from '../../adapters/file/local.js';
import { verifyWebhook } from '../../domain/webhooks/signature.js';
import { ingestInboxFiles } from '../../usecases/insurer-exchange/inbox.js';
import { syncRosterSchedules } from '../../usecases/reconciliation/roster-schedules.js';
import {
  reconciliationWorkflowId,
  ROSTER_RECONCILIATION_WORKFLOW,
  rosterScheduleId,
  type ReconcileResult,
} from '../../workflows/roster-reconciliation/contract.js';
import {
  makeClient,
  makeEmployee,
  makeMember,
  makePolicy,
  makeReferenceData,
  sql,
} from '../support/factories.js';
import { stack } from '../support/stack.js';

const tag = () => randomBytes(3).toString('hex').toUpperCase();

/** One covered employee (no UHID here) and a roster row for them with a UHID and another sum insured. */
async function coveredEmployee(clientId: string, policyId: string) {
  const employee = await makeEmployee(clientId, { employeeCode: `R-${tag()}`, dateOfBirth: '1990-05-17' });
  const member = await makeMember(clientId, policyId, employee);
  return { employee, member };
}

const result = (id: string) =>
  stack().temporal.workflow.getHandle<() => Promise<ReconcileResult>>(reconciliationWorkflowId(id)).result();

describe('roster reconciliation: the inbox, an api insurer, the Schedule', function () {
  this.timeout(120_000);
  let dataDir: string;
  before(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'roster-inbox-'));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it("a ROSTER_ file in a file insurer's inbox reconciles that policy; one naming another client's policy is refused", async () => {
    const [owner, other] = await Promise.all([makeClient(), makeClient()]);
    const reference = await makeReferenceData(owner.clientId, {
      adapter: 'file',
      adapterSettings: { template: 'india-census' },
    });
    const policy = await makePolicy(owner.clientId, { reference, policyNumber: `CARE/GH/${tag()}` });
    const foreign = await makePolicy(other.clientId, { policyNumber: `OTHER/GH/${tag()}` });
    const { employee, member } = await coveredEmployee(owner.clientId, policy.id);
    const [{ code }] = await sql('select code from insurers where id = ?', [reference.insurerId]);
    const folders = localInsurerFolders(dataDir, code);
    mkdirSync(folders.inbox, { recursive: true });
    const book = new ExcelJS.Workbook();
    book.addWorksheet('Active Roster').addRows([
      [
        'Member Status',
        'UHID',
        'Employee Code',
        'Member Name',
        'DOB (DD/MM/YYYY)',
        'Relationship',
        'Sum Insured',
      ],
      ['Active', 'UH-INBOX', employee.employeeCode, employee.name, '17/05/1990', 'Self', '500000'],
    ]);
    const name = `ROSTER_${policy.policyNumber.replaceAll('/', '-')}_202611.xlsx`;
    writeFileSync(path.join(folders.inbox, name), Buffer.from(await book.xlsx.writeBuffer()));
    const foreignName = `roster_${foreign.policyNumber.replaceAll('/', '-')}_202611.csv`;
    writeFileSync(path.join(folders.inbox, foreignName), 'UHID\r\n');

    const deps = { em: stack().orm.em, temporal: stack().temporal, dataDir, taskQueue: stack().taskQueue };
    const files = await ingestInboxFiles(deps, { insurerCode: code });
    const byName = new Map(files.map((f) => [f.file_name, f]));
    expect(byName.get(foreignName)).to.include({
      status: 'refused',
      error: `no policy of insurer ${code} has the number the file name gives`,
      moved_to: `refused/${foreignName}`,
    });
    const accepted = byName.get(name)!;
    expect(accepted).to.include({ status: 'applied', error: null, moved_to: `processed/${name}` });
    const done = await result(accepted.reconciliation_id!);
    expect(done).to.include({ status: 'completed', policy_id: policy.id });
    expect(done.counts).to.include({ field_mismatch: 1, missing_uhid: 1, covered_here_not_there: 0 });
    const [filled] = await sql('select uhid from policy_members where id = ?', [member.id]);
    expect(filled.uhid).to.equal('UH-INBOX');
    const ack = readFileSync(path.join(folders.outbox, `${name}.ack.csv`), 'utf8');
    expect(parse(ack)[1]).to.deep.equal([
      '',
      accepted.reconciliation_id,
      'accepted',
      'roster received for reconciliation',
    ]);
    expect(existsSync(path.join(folders.inbox, 'processed', name))).to.equal(true);
    // The other client's policy got nothing.
    const [none] = await sql('select count(*)::int as n from roster_reconciliations where policy_id = ?', [
      foreign.id,
    ]);
    expect(none.n).to.equal(0);
  });

  it("an api insurer's roster is fetched (signed), reconciled, and its policy gets a monthly Schedule", async () => {
    const owner = await makeClient();
    const secretEnv = `TEST_ROSTER_SECRET_${tag()}`;
    const secret = randomBytes(32).toString('hex');
    process.env[secretEnv] = secret;
    let employee: { employeeCode: string; name: string } | undefined;
    const calls: { path: string; verified: boolean; body: string }[] = [];
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const verified = verifyWebhook(
          secret,
          body,
          String(req.headers.signature ?? ''),
          Math.floor(Date.now() / 1000),
        ).ok;
        calls.push({ path: req.url ?? '', verified, body });
        res.writeHead(verified ? 200 : 401, { 'Content-Type': 'text/csv' });
        res.end(
          `employee_code,member_name,date_of_birth,relationship,status,uhid\r\n${employee!.employeeCode},${employee!.name},1990-05-17,SELF,ACTIVE,UH-API\r\n`,
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const reference = await makeReferenceData(owner.clientId, {
        adapter: 'api',
        adapterSettings: {
          base_url: `http://127.0.0.1:${port}/insurer`,
          signing_secret_env: secretEnv,
          roster: { day_of_month: 5, template: 'generic' },
        },
      });
      const policy = await makePolicy(owner.clientId, { reference });
      const covered = await coveredEmployee(owner.clientId, policy.id);
      employee = covered.employee;

      const done = await stack().temporal.workflow.execute(ROSTER_RECONCILIATION_WORKFLOW, {
        workflowId: `roster-test-${policy.id}`,
        taskQueue: stack().taskQueue,
        args: [{ policyId: policy.id }],
      });
      expect(done).to.include({ status: 'completed', policy_id: policy.id });
      expect(done.counts).to.deep.equal({
        covered_there_not_here: 0,
        covered_here_not_there: 0,
        field_mismatch: 0,
        missing_uhid: 1,
        explained_by_endorsement: 0,
      });
      expect(calls.map((c) => [c.path, c.verified, JSON.parse(c.body)])).to.deep.equal([
        ['/insurer/roster', true, { policy_number: policy.policyNumber }],
      ]);
      const [row] = await sql('select source from roster_reconciliations where id = ?', [
        done.reconciliation_id,
      ]);
      expect(row.source).to.equal('api');

      const sync = await syncRosterSchedules(stack().temporal, stack().orm.em.fork(), stack().taskQueue);
      const scheduleId = rosterScheduleId(policy.id);
      expect(sync.ensured).to.include(scheduleId);
      const schedule = await stack().temporal.schedule.getHandle(scheduleId).describe();
      expect(schedule.spec.calendars?.[0]).to.deep.include({ dayOfMonth: [{ start: 5, end: 5, step: 1 }] });
      await stack().temporal.schedule.getHandle(scheduleId).delete();
    } finally {
      delete process.env[secretEnv];
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
