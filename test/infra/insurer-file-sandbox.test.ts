import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { fileTemplate } from '../../domain/insurer-exchange/file-templates/index.js';
import { startFileInsurerSandbox, type FileAnswer } from '../../infra/insurer-file-sandbox.js';
import { sandboxSettingsSchema } from '../../infra/insurer-sandbox.js';
import { writeCsv } from '../../infra/spreadsheet-files.js';

const HEADER = [
  'Sr No',
  'Policy No',
  'Employee Code',
  'Member Name',
  'Relationship',
  'Gender',
  'DOB (DD/MM/YYYY)',
  'Sum Insured',
  'Effective Date',
  'Endorsement Type',
  'Reference No',
];
const row = (n: number, name: string, rel: string, dob: string, action: string, ref: string) => [
  n,
  'CARE/GH/2026/000342',
  `E-${n}`,
  name,
  rel,
  'F',
  dob,
  300000,
  '26/11/2026',
  action,
  ref,
];

/** A cut-off file as CARE's adapter writes it (india-census), read back as the insurer's answer. */
describe('the file insurer sandbox answers cut-off files in the insurer template', () => {
  let dir: string;
  let clock: number;
  const answers: FileAnswer[] = [];
  const settings = sandboxSettingsSchema.parse({
    path: '/digit',
    approve_after_seconds: 5,
    reject_names_matching: '^reject',
    rejection_reason: 'Declined by the insurer sandbox rule',
    uhid_prefix: 'CARE-',
  });
  const start = () =>
    startFileInsurerSandbox({
      settings,
      insurerCode: 'CARE',
      template: fileTemplate('india-census'),
      outbox: path.join(dir, 'outbox'),
      inbox: path.join(dir, 'inbox'),
      stateFile: path.join(dir, 'state.json'),
      pollMs: 60_000,
      now: () => clock,
      onAnswered: (a) => answers.push(a),
    });

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'file-sandbox-'));
    clock = Date.parse('2026-11-26T12:00:00Z');
    answers.length = 0;
    await fs.mkdir(path.join(dir, 'outbox'));
  });
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));

  it('approves each person with a stable UHID, rejects by the name rule, skips withdrawals, once per file', async () => {
    const name = 'CARE_CARE-GH-2026-000342_20261126_170000';
    const table = [
      HEADER,
      row(1, 'Asha Verma', 'Self', '17/05/1988', 'Addition', 'end_a'),
      row(2, 'Ravi Verma', 'Spouse', '09/01/1987', 'Addition', 'end_a'),
      row(3, 'Reject Me', 'Self', '11/02/1990', 'Addition', 'end_b'),
      row(4, 'Kiran Rao', 'Self', '01/03/1985', 'Cancellation', 'end_c'),
    ];
    await fs.writeFile(path.join(dir, 'outbox', `${name}.csv`), writeCsv(table));
    await fs.writeFile(path.join(dir, 'outbox', `${name}.xlsx`), 'the same cut-off as XLSX');
    await fs.writeFile(path.join(dir, 'outbox', 'RESPONSE_OLD.csv.ack.csv'), 'an acknowledgement');
    const sandbox = await start();
    try {
      await sandbox.poll();
      expect(await fs.readdir(path.join(dir, 'inbox')).catch(() => [])).to.deep.equal([]);
      clock += 5_000;
      await sandbox.poll();
      expect(await fs.readdir(path.join(dir, 'inbox'))).to.deep.equal([`RESPONSE_${name}.csv`]);
      const text = await fs.readFile(path.join(dir, 'inbox', `RESPONSE_${name}.csv`), 'utf8');
      const lines = text.trimEnd().split('\r\n');
      expect(lines[0]).to.equal(
        '"Reference No","Status","UHID","Member ID","Rejection Remarks","Relationship","DOB (DD/MM/YYYY)"',
      );
      expect(lines).to.have.length(4);
      expect(lines[1]).to.match(
        /^"end_a","Endorsed","CARE-[0-9A-F]{10}","M-[0-9A-F]{10}","","Self","17\/05\/1988"$/,
      );
      expect(lines[2]).to.match(
        /^"end_a","Endorsed","CARE-[0-9A-F]{10}","M-[0-9A-F]{10}","","Spouse","09\/01\/1987"$/,
      );
      expect(lines[1]).to.not.equal(lines[2]);
      expect(lines[3]).to.equal(
        '"end_b","Rejected","","","Declined by the insurer sandbox rule","Self","11/02/1990"',
      );
      expect(answers).to.deep.equal([
        {
          cut_off_file: `${name}.csv`,
          response_file: `RESPONSE_${name}.csv`,
          decided: [
            ['end_a', 'APPROVED'],
            ['end_b', 'REJECTED'],
          ],
        },
      ]);

      // Answered once, also after a restart: the state file remembers it.
      await fs.rm(path.join(dir, 'inbox', `RESPONSE_${name}.csv`));
      clock += 60_000;
      await sandbox.poll();
      await sandbox.close();
      const again = await start();
      clock += 60_000;
      await again.poll();
      await again.poll();
      await again.close();
      expect(await fs.readdir(path.join(dir, 'inbox'))).to.deep.equal([]);
      expect(answers).to.have.length(1);

      // Written again (the state lost, as after a crash before it was saved): the same answer.
      await fs.rm(path.join(dir, 'state.json'));
      const fresh = await start();
      await fresh.poll();
      clock += 5_000;
      await fresh.poll();
      await fresh.close();
      expect(await fs.readFile(path.join(dir, 'inbox', `RESPONSE_${name}.csv`), 'utf8')).to.equal(text);
    } finally {
      await sandbox.close();
    }
  });
});
