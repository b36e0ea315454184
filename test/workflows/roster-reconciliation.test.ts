import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import ExcelJS from 'exceljs';
import { ROSTER_FIELDS } from '../../domain/reconciliation/roster-file.js';
import { reconcileRosterFile } from '../../usecases/reconciliation/roster.js';
import {
  makeClient,
  makeDependent,
  makeEmployee,
  makeEndorsement,
  makeMember,
  makePolicy,
  sql,
  type TestClient,
} from '../support/factories.js';
import { client, type HttpClient } from '../support/http.js';
import { stack, TEST_KEYS } from '../support/stack.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
/** The generic template's roster headers are its field names. */
const HEADER = [...ROSTER_FIELDS];
const tag = () => randomBytes(3).toString('hex').toUpperCase();
const csv = (rows: string[][]) => rows.map((r) => r.join(',')).join('\r\n');

async function xlsx(rows: string[][]): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  book.addWorksheet('Roster').addRows(rows);
  return Buffer.from(await book.xlsx.writeBuffer());
}

/**
 * A policy with one person for each kind of difference, and the roster (generic template) that
 * shows them all:
 * - `same`: employee with UHID, identical on both sides;
 * - `sumDiff`: the insurer has another sum insured; its spouse another date of birth;
 * - `noUhid`: we have no UHID, the roster has one (filled in);
 * - `onlyOurs`: we cover them, the roster does not (listed as Inactive);
 * - `onlyTheirs`: the roster covers them, we do not;
 * - `pending`: the roster covers them, we do not yet, but their addition is open (explained).
 */
async function scenario(owner: TestClient) {
  const policy = await makePolicy(owner.clientId);
  const people: Record<string, { id: string; employeeCode: string; name: string }> = {};
  for (const k of ['same', 'sumDiff', 'noUhid', 'onlyOurs', 'onlyTheirs', 'pending']) {
    people[k] = await makeEmployee(owner.clientId, {
      employeeCode: `${k}-${tag()}`,
      dateOfBirth: '1990-05-17',
    });
  }
  const p = people as Record<
    'same' | 'sumDiff' | 'noUhid' | 'onlyOurs' | 'onlyTheirs' | 'pending',
    { id: string; employeeCode: string; name: string }
  >;
  await makeMember(owner.clientId, policy.id, p.same, { uhid: 'UH-SAME' });
  const sumDiff = await makeMember(owner.clientId, policy.id, p.sumDiff, { uhid: 'UH-SUM' });
  const spouse = await makeDependent(owner.clientId, p.sumDiff.id, {
    name: 'Kiran Rao',
    dateOfBirth: '1991-01-01',
  });
  await makeMember(owner.clientId, policy.id, p.sumDiff, { dependentId: spouse.id });
  const noUhid = await makeMember(owner.clientId, policy.id, p.noUhid);
  const onlyOurs = await makeMember(owner.clientId, policy.id, p.onlyOurs, { uhid: 'UH-OURS' });
  const endorsementId = await makeEndorsement(owner.clientId, policy.id, { employeeId: p.pending.id });
  const row = (
    uhid: string,
    who: { employeeCode: string; name: string },
    o: Partial<Record<string, string>> = {},
  ) => [
    uhid,
    '',
    policy.policyNumber,
    who.employeeCode,
    o.name ?? who.name,
    o.dob ?? '1990-05-17',
    o.relationship ?? 'SELF',
    o.sum ?? '300000',
    '2026-04-01',
    '2027-03-31',
    o.status ?? 'ACTIVE',
  ];
  const rows = [
    HEADER,
    row('UH-SAME', p.same),
    row('UH-SUM', p.sumDiff, { sum: '500000' }),
    row('', p.sumDiff, { name: 'kiran  RAO', relationship: 'SPOUSE', dob: '1991-02-01' }),
    row('UH-NEW', p.noUhid),
    row('UH-OURS', p.onlyOurs, { status: 'INACTIVE' }),
    row('UH-THEIRS', p.onlyTheirs),
    row('UH-PENDING', p.pending),
  ];
  return { policy, people: p, rows, members: { sumDiff, noUhid, onlyOurs }, endorsementId };
}

describe('roster reconciliation', function () {
  this.timeout(120_000);
  let http: HttpClient;
  let dir: string;
  const deps = () => ({
    em: stack().orm.em.fork(),
    temporal: stack().temporal,
    taskQueue: stack().taskQueue,
  });
  const write = (name: string, content: string | Buffer) => {
    const file = path.join(dir, name);
    writeFileSync(file, content);
    return file;
  };

  before(async () => {
    http = client((await stack().startApi()).url);
    dir = mkdtempSync(path.join(os.tmpdir(), 'roster-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('records each kind of difference, fills the missing UHID, and shows them to the owning client only', async () => {
    const [owner, other] = await Promise.all([makeClient(), makeClient()]);
    const s = await scenario(owner);
    const result = await reconcileRosterFile(deps(), s.policy.id, write('roster.csv', csv(s.rows)));
    expect(result).to.include({ status: 'completed', repeat: false, roster_rows: 7 });
    expect(result.counts).to.deep.equal({
      covered_there_not_here: 1,
      covered_here_not_there: 1,
      field_mismatch: 2,
      missing_uhid: 1,
      explained_by_endorsement: 1,
    });

    const token = owner.token(['policy.get']);
    const list = await http.get(`/v1/policy/${s.policy.id}/reconciliations`, { token });
    expect(list.status, list.text).to.equal(200);
    expect(list.body.payload.reconciliations.map((r: { id: string }) => r.id)).to.deep.equal([
      result.reconciliation_id,
    ]);
    const detail = await http.get(
      `/v1/policy/${s.policy.id}/reconciliations/${result.reconciliation_id}?limit=100`,
      { token },
    );
    expect(detail.status).to.equal(200);
    expect(detail.body.payload.reconciliation).to.include({
      kind: 'roster',
      status: 'completed',
      source: 'command',
      roster_rows: 7,
    });
    const seen = detail.body.payload.differences.map((d: Record<string, unknown>) => [
      d.kind,
      d.employee_code,
      d.relationship,
      d.field,
      d.ours,
      d.theirs,
      d.explains,
    ]);
    expect(seen).to.have.deep.members([
      ['covered_there_not_here', s.people.onlyTheirs.employeeCode, 'SELF', null, null, null, null],
      ['covered_here_not_there', s.people.onlyOurs.employeeCode, 'SELF', null, null, null, null],
      [
        'field_mismatch',
        s.people.sumDiff.employeeCode,
        'SELF',
        'sum_insured',
        '300000.00',
        '500000.00',
        null,
      ],
      [
        'field_mismatch',
        s.people.sumDiff.employeeCode,
        'SPOUSE',
        'date_of_birth',
        '1991-01-01',
        '1991-02-01',
        null,
      ],
      ['missing_uhid', s.people.noUhid.employeeCode, 'SELF', 'uhid', null, 'UH-NEW', null],
      [
        'explained_by_endorsement',
        s.people.pending.employeeCode,
        'SELF',
        null,
        null,
        null,
        'covered_there_not_here',
      ],
    ]);
    const explained = detail.body.payload.differences.find(
      (d: { kind: string }) => d.kind === 'explained_by_endorsement',
    );
    expect(explained.endorsement_id).to.equal(s.endorsementId);

    // The UHID is ours now, with one audit entry (names of fields, no values).
    const [member] = await sql('select uhid from policy_members where id = ?', [s.members.noUhid.id]);
    expect(member.uhid).to.equal('UH-NEW');
    const audit = await http.get(`/v1/audit?entity=policy_member&entity_id=${s.members.noUhid.id}`, {
      token: owner.token(['policy.all']),
    });
    expect(
      audit.body.payload.audit_events.map((e: { action: string; changed_fields: string[] }) => [
        e.action,
        e.changed_fields,
      ]),
    ).to.deep.equal([['uhid_filled', ['uhid']]]);

    // The webhook event carries counts and ids, never a member's values.
    const [event] = await sql(
      `select payload from webhook_events where type = 'policy.reconciliation_completed' and client_id = ?`,
      [owner.clientId],
    );
    expect(event.payload).to.deep.equal({
      reconciliation_id: result.reconciliation_id,
      policy_id: s.policy.id,
      kind: 'roster',
      status: 'completed',
      roster_rows: 7,
      counts: result.counts,
    });
    // The staged roster is gone once compared.
    const [staged] = await sql('select count(*)::int as n from roster_rows where reconciliation_id = ?', [
      result.reconciliation_id,
    ]);
    expect(staged.n).to.equal(0);

    // Another client sees neither the list nor the reconciliation.
    const foreign = other.token(['policy.get']);
    expect((await http.get(`/v1/policy/${s.policy.id}/reconciliations`, { token: foreign })).status).to.equal(
      404,
    );
    expect(
      (
        await http.get(`/v1/policy/${s.policy.id}/reconciliations/${result.reconciliation_id}`, {
          token: foreign,
        })
      ).status,
    ).to.equal(404);
  });

  it('the same roster twice answers the same reconciliation: no second comparison, no second UHID audit', async () => {
    const owner = await makeClient();
    const s = await scenario(owner);
    const file = write('twice.csv', csv(s.rows));
    const first = await reconcileRosterFile(deps(), s.policy.id, file);
    const second = await reconcileRosterFile(deps(), s.policy.id, file);
    expect(second).to.deep.equal({ ...first, repeat: true });
    const [audits] = await sql(
      `select count(*)::int as n from audit_events where client_id = ? and entity = 'policy_member' and action = 'uhid_filled'`,
      [owner.clientId],
    );
    expect(audits.n).to.equal(1);
    const [diffs] = await sql('select count(*)::int as n from roster_differences where client_id = ?', [
      owner.clientId,
    ]);
    expect(diffs.n).to.equal(6);
    const [events] = await sql(
      `select count(*)::int as n from webhook_events where client_id = ? and type = 'policy.reconciliation_completed'`,
      [owner.clientId],
    );
    expect(events.n).to.equal(1);
  });

  it('reads an XLSX roster like the CSV one', async () => {
    const owner = await makeClient();
    const s = await scenario(owner);
    const result = await reconcileRosterFile(deps(), s.policy.id, write('roster.xlsx', await xlsx(s.rows)));
    expect(result).to.include({ status: 'completed', roster_rows: 7 });
    expect(result.counts).to.deep.equal({
      covered_there_not_here: 1,
      covered_here_not_there: 1,
      field_mismatch: 2,
      missing_uhid: 1,
      explained_by_endorsement: 1,
    });
  });

  it('refuses a malformed roster whole through the command, saying where, and stages nothing', async () => {
    const owner = await makeClient();
    const s = await scenario(owner);
    const bad = s.rows.map((r) => [...r]);
    bad[5]![5] = '31/02/1990';
    const file = write('bad.csv', csv(bad));
    const env = {
      ...process.env,
      ...TEST_KEYS,
      ...stack().databaseEnv,
      TEMPORAL_ADDRESS: stack().temporalAddress,
      TEMPORAL_NAMESPACE: stack().config.TEMPORAL_NAMESPACE,
      TEMPORAL_TASK_QUEUE: stack().taskQueue,
      LOG_LEVEL: 'silent',
    };
    const run = await promisify(execFile)(
      'node',
      ['--import', 'tsx', 'scripts/insurer.ts', 'reconcile', s.policy.id, file, '--json'],
      { cwd: ROOT, env },
    ).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
    expect(run.code).to.equal(1);
    const out = JSON.parse(run.stdout);
    expect(out).to.include({ status: 'refused', policy_id: s.policy.id, roster_rows: 0 });
    expect(out.error).to.equal('row 6: date_of_birth is not a date (YYYY-MM-DD)');
    const [rows] = await sql('select count(*)::int as n from roster_rows where client_id = ?', [
      owner.clientId,
    ]);
    expect(rows.n).to.equal(0);
    const [member] = await sql('select uhid from policy_members where id = ?', [s.members.noUhid.id]);
    expect(member.uhid).to.equal(null);
    const token = owner.token(['policy.get']);
    const detail = await http.get(`/v1/policy/${s.policy.id}/reconciliations/${out.reconciliation_id}`, {
      token,
    });
    expect(detail.body.payload.reconciliation).to.include({ status: 'refused', error: out.error });
    expect(detail.body.payload.differences).to.deep.equal([]);
  });

  it("refuses a roster naming another policy's number in its rows", async () => {
    const [owner, other] = await Promise.all([makeClient(), makeClient()]);
    const s = await scenario(owner);
    const foreign = await makePolicy(other.clientId);
    const rows = s.rows.map((r, i) =>
      i === 2 ? r.map((c) => (c === s.policy.policyNumber ? foreign.policyNumber : c)) : r,
    );
    const result = await reconcileRosterFile(deps(), s.policy.id, write('foreign.csv', csv(rows)));
    expect(result).to.include({
      status: 'refused',
      error: "row 3: policy_number is not this policy's number",
    });
  });
});
