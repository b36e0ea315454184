import { expect } from 'chai';
import { fileTemplate } from '../../../domain/insurer-exchange/file-templates/index.js';
import { MalformedRoster, rosterReader } from '../../../domain/reconciliation/roster-file.js';

const HEADER = [
  'uhid',
  'insurer_member_id',
  'employee_code',
  'member_name',
  'date_of_birth',
  'relationship',
  'status',
];
const row = (uhid: string, memberId = '') => [
  uhid,
  memberId,
  'E-1',
  'Asha Rao',
  '1990-03-07',
  'SELF',
  'ACTIVE',
];

function read(cells: string[]) {
  const reader = rosterReader(fileTemplate('generic'), 'GHI/2026/0042');
  reader.header(HEADER);
  return reader.row(2, cells);
}

describe('domain: an insurer roster’s ids keep the text rules', () => {
  it('reads a roster row’s UHID and member id', () => {
    expect(read(row('UH-1', 'M-1'))).to.include({ uhid: 'UH-1', insurerMemberId: 'M-1' });
  });

  it('refuses the roster at a UHID or member id that breaks them, naming the row, column and rule', () => {
    const cases: [string[], string][] = [
      [row('=1+1'), 'row 2: uhid must not start with =, +, - or @'],
      [row('UH\u202e1'), 'row 2: uhid must not contain bidirectional formatting characters'],
      [row('UH\u00071'), 'row 2: uhid must not contain control characters'],
      [row('UH-1', 'M\u200b1'), 'row 2: insurer_member_id must not contain invisible characters'],
    ];
    for (const [cells, why] of cases) expect(() => read(cells)).to.throw(MalformedRoster, why);
  });
});
