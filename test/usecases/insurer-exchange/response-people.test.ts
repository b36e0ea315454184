import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { parse } from 'csv-parse/sync';
import { localInsurerFolders } from '../../../adapters/file/local.js';
import { fileTemplate } from '../../../domain/insurer-exchange/file-templates/index.js';
import { ingestInboxFiles, type IngestedInboxFile } from '../../../usecases/insurer-exchange/inbox.js';
import { sql } from '../../support/factories.js';
import { sentFileInsurerEndorsements, type FileInsurerEndorsements } from '../../support/file-insurer.js';
import { stack } from '../../support/stack.js';
import { waitForStatus } from '../../workflows/endorsement-support.js';

const APPROVED = 'ENDORSEMENT_STATUS_APPROVED';
const HEADER = fileTemplate('india-census').response.columns.map((c) => c.header);
const csv = (rows: string[][]): Buffer => Buffer.from(rows.map((r) => r.join(',')).join('\r\n'));

/** Each member row of an endorsement as [relationship (SELF for the employee), uhid]. */
async function memberUhids(endorsementId: string): Promise<[string, string | null][]> {
  const rows = await sql(
    `select coalesce(d.relationship, 'SELF') as relationship, d.date_of_birth::text as dob, m.uhid
       from policy_members m left join dependents d on d.id = m.dependent_id
      where m.endorsement_id = ? order by m.member_rank, d.relationship desc, d.date_of_birth`,
    [endorsementId],
  );
  return rows.map((r) => [r.relationship, r.uhid]);
}

describe("use case: a response file's rows per covered person (D14)", function () {
  this.timeout(240_000);
  let dataDir: string;
  let fi: FileInsurerEndorsements;
  let ingested: IngestedInboxFile;
  let family: string;
  let twins: string;
  const NAME = 'status-family.csv';

  before(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'insurer-response-people-'));
    // Employee 0: a spouse and two children; employee 1: a spouse and twins (the same date of birth).
    fi = await sentFileInsurerEndorsements({
      count: 2,
      settings: { template: 'india-census' },
      family: (i) => [
        { relationship: 'SPOUSE', dateOfBirth: '1991-01-01' },
        { relationship: 'CHILD', dateOfBirth: i === 0 ? '2015-03-01' : '2019-01-01' },
        { relationship: 'CHILD', dateOfBirth: i === 0 ? '2018-07-09' : '2019-01-01' },
      ],
    });
    [family, twins] = fi.endorsements.map((e) => e.id) as [string, string];
    const inbox = localInsurerFolders(dataDir, fi.code).inbox;
    mkdirSync(inbox, { recursive: true });
    writeFileSync(
      path.join(inbox, NAME),
      csv([
        HEADER,
        [family, 'Endorsed', 'UH-E', 'M-1', '', 'Self', '17/05/1990'],
        [family, 'Endorsed', 'UH-S', 'M-2', '', 'Spouse', '01/01/1991'],
        [family, 'Endorsed', 'UH-C1', 'M-3', '', 'Child', '01/03/2015'],
        [family, 'Endorsed', 'UH-C2', 'M-4', '', 'Child', '09/07/2018'],
        [twins, 'Endorsed', 'UH-T', '', '', 'Self', ''],
        [twins, 'Endorsed', 'UH-T1', '', '', 'Child', '01/01/2019'],
        [twins, 'Endorsed', 'UH-TS', '', '', 'Spouse', '02/02/1992'],
      ]),
    );
    const deps = { em: stack().orm.em, temporal: stack().temporal, dataDir, taskQueue: stack().taskQueue };
    [ingested] = (await ingestInboxFiles(deps, { insurerCode: fi.code })) as [IngestedInboxFile];
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it("answers each person's row: the family accepted, an ambiguous and an unmatched person refused with why", () => {
    const answer = "the endorsement's answer: APPROVED recorded";
    expect(ingested.rows.map((r) => [r.row, r.reference, r.result, r.detail])).to.deep.equal([
      [2, family, 'accepted', 'APPROVED recorded'],
      [3, family, 'accepted', 'APPROVED recorded'],
      [4, family, 'accepted', 'APPROVED recorded'],
      [5, family, 'accepted', 'APPROVED recorded'],
      [6, twins, 'accepted', 'APPROVED recorded'],
      [
        7,
        twins,
        'refused',
        `person not matched: ambiguous: 2 covered Child with this date of birth; ${answer}`,
      ],
      [8, twins, 'refused', `person not matched: no covered Spouse with this date of birth; ${answer}`],
    ]);
    const ack = parse(
      readFileSync(path.join(localInsurerFolders(dataDir, fi.code).outbox, `${NAME}.ack.csv`)),
    );
    expect(ack[7]).to.deep.equal(['8', twins, 'refused', ingested.rows[6]!.detail]);
  });

  it('writes four member rows with their own UHIDs, audited with the approval', async () => {
    await waitForStatus(family, APPROVED);
    expect(await memberUhids(family)).to.deep.equal([
      ['SELF', 'UH-E'],
      ['SPOUSE', 'UH-S'],
      ['CHILD', 'UH-C1'],
      ['CHILD', 'UH-C2'],
    ]);
    const [audit] = await sql(
      "select changed_fields from audit_events where entity_id = ? and action = 'approve'",
      [family],
    );
    expect(audit.changed_fields).to.deep.equal(['status', 'insurer_member_id', 'uhid', 'member_uhids']);
    const perMember = await sql(
      `select count(*)::int as n from audit_events a join policy_members m on m.id = a.entity_id
        where m.endorsement_id = ? and a.entity = 'policy_member' and a.action = 'uhid'`,
      [family],
    );
    expect(perMember[0].n).to.equal(3);
  });

  it('still approves an endorsement whose persons could not be matched, writing no UHID for them', async () => {
    await waitForStatus(twins, APPROVED);
    expect(await memberUhids(twins)).to.deep.equal([
      ['SELF', 'UH-T'],
      ['SPOUSE', null],
      ['CHILD', null],
      ['CHILD', null],
    ]);
  });

  it('the same file again changes nothing', async () => {
    const deps = { em: stack().orm.em, temporal: stack().temporal, dataDir, taskQueue: stack().taskQueue };
    const [again] = (await ingestInboxFiles(deps, { insurerCode: fi.code, fileName: NAME })) as [
      IngestedInboxFile,
    ];
    expect(again).to.include({ repeat: true });
    expect(again.rows).to.deep.equal(ingested.rows);
    expect(await memberUhids(family)).to.have.length(4);
  });
});
