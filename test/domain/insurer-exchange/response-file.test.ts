import { expect } from 'chai';
import { fileTemplateSchema } from '../../../domain/insurer-exchange/file.js';
import { fileTemplate } from '../../../domain/insurer-exchange/file-templates/index.js';
import {
  acknowledgementName,
  acknowledgementTable,
  MAX_RESPONSE_ROWS,
  parseResponseTable,
  rowOutcome,
  type ResponseTableRow,
} from '../../../domain/insurer-exchange/response-file.js';

const table = (...rows: string[][]): ResponseTableRow[] =>
  rows.map((cells, i) => ({ rowNumber: i + 1, cells }));
const census = fileTemplate('india-census').response;
const generic = fileTemplate('generic').response;
const A = 'end_aaaaaaaaaaaaaaaaaaaaaa';
const B = 'end_bbbbbbbbbbbbbbbbbbbbbb';

describe('domain: insurer response files (D14)', () => {
  it("reads each row as a decision in the template's words, whatever the header order and case", () => {
    const parsed = parseResponseTable(
      census,
      table(
        ['Sr No', 'status', 'REFERENCE NO', 'UHID', 'Member ID', 'Rejection Remarks', 'Extra'],
        ['1', 'Endorsed', A, 'UH-1', 'M-1', 'ignored on an approval', 'x'],
        ['2', 'rejected', B, '', '', 'Age above limit', ''],
      ),
    );
    expect(parsed).to.deep.equal({
      ok: true,
      rows: [
        {
          rowNumber: 2,
          reference: A,
          decision: { decision: 'APPROVED', uhid: 'UH-1', insurer_member_id: 'M-1' },
        },
        {
          rowNumber: 3,
          reference: B,
          decision: { decision: 'REJECTED', rejection_reason: 'Age above limit' },
        },
      ],
    });
  });

  it('makes a row malformed for what is wrong with it, without its values; blank rows are skipped', () => {
    const parsed = parseResponseTable(
      generic,
      table(
        ['reference', 'decision', 'uhid', 'insurer_member_id', 'rejection_reason'],
        ['', 'APPROVED', '', '', ''],
        [A, 'MAYBE', '', '', ''],
        ['', '', '', '', ''],
        [B, 'REJECTED', '', '', ''],
        [A, 'APPROVED', 'U'.repeat(101), '', ''],
        [B, '', '', '', ''],
      ),
    );
    if (!parsed.ok) throw new Error(parsed.error);
    expect(parsed.rows.map((r) => [r.rowNumber, 'malformed' in r ? r.malformed : 'ok'])).to.deep.equal([
      [2, 'reference is empty'],
      [3, 'decision must be APPROVED or REJECTED'],
      [5, 'a rejection needs a rejection reason'],
      [6, 'uhid is longer than 100 characters'],
      [7, 'decision is empty'],
    ]);
  });

  it("makes a row malformed when the insurer's text breaks the text rules, the other rows read on", () => {
    const parsed = parseResponseTable(
      generic,
      table(
        ['reference', 'decision', 'uhid', 'insurer_member_id', 'rejection_reason'],
        [A, 'APPROVED', '=1+1', '', ''],
        [A, 'APPROVED', 'UH\u202e1', '', ''],
        [A, 'APPROVED', 'UH\u00071', '', ''],
        [A, 'APPROVED', 'UH-1', '-M1', ''],
        [B, 'REJECTED', '', '', 'Age\u200f above limit'],
        [B, 'APPROVED', 'UH-2', 'M-2', ''],
      ),
    );
    if (!parsed.ok) throw new Error(parsed.error);
    expect(parsed.rows.map((r) => [r.rowNumber, 'malformed' in r ? r.malformed : 'ok'])).to.deep.equal([
      [2, 'uhid must not start with =, +, - or @'],
      [3, 'uhid must not contain bidirectional formatting characters'],
      [4, 'uhid must not contain control characters'],
      [5, 'insurer_member_id must not start with =, +, - or @'],
      [6, 'rejection_reason must not contain bidirectional formatting characters'],
      [7, 'ok'],
    ]);
  });

  it('refuses a whole file with no header, a required header missing, or too many rows', () => {
    expect(parseResponseTable(generic, [])).to.deep.equal({
      ok: false,
      error: 'the file is empty (no header row)',
    });
    expect(parseResponseTable(census, table(['Reference No', 'UHID'], [A, 'U']))).to.deep.equal({
      ok: false,
      error: 'missing required headers: Status (the first row must be the header row)',
    });
    const many = table(
      ['reference', 'decision'],
      ...Array.from({ length: MAX_RESPONSE_ROWS + 1 }, () => [A, 'APPROVED']),
    );
    const refused = parseResponseTable(generic, many);
    expect(refused).to.deep.equal({
      ok: false,
      error: `too many rows: ${MAX_RESPONSE_ROWS + 1} (at most ${MAX_RESPONSE_ROWS})`,
    });
  });

  it('reads "not found" as an unknown reference and a malformed row with its reason', () => {
    const row = { rowNumber: 4, reference: A, decision: { decision: 'APPROVED' as const } };
    expect(rowOutcome(row, { result: 'refused', detail: 'not found' })).to.deep.equal({
      row: 4,
      reference: A,
      result: 'refused',
      detail: 'unknown reference',
    });
    expect(rowOutcome(row, null).detail).to.equal('unknown reference');
    expect(rowOutcome(row, { result: 'duplicate', detail: 'already APPROVED' }).result).to.equal('duplicate');
    expect(rowOutcome({ rowNumber: 5, reference: '', malformed: 'reference is empty' }, null)).to.deep.equal({
      row: 5,
      reference: '',
      result: 'refused',
      detail: 'malformed row (reference is empty)',
    });
  });

  it('names and fills the acknowledgement: one line per row, or the reason a file was refused', () => {
    expect(acknowledgementName('STAR response 23-11.xlsx')).to.equal('STAR-response-23-11.xlsx.ack.csv');
    expect(acknowledgementTable({ error: 'missing required headers: Status', rows: [] })).to.deep.equal([
      ['row', 'reference', 'result', 'detail'],
      ['', '', 'refused', 'file refused: missing required headers: Status'],
    ]);
  });

  it('refuses a template whose response layout misses a field or repeats a header', () => {
    const t = fileTemplate('generic');
    const without = { ...t, response: { ...t.response, columns: t.response.columns.slice(1) } };
    expect(fileTemplateSchema.safeParse(without).success).to.equal(false);
    const repeated = {
      ...t,
      response: {
        ...t.response,
        columns: t.response.columns.map((c, i) => (i === 1 ? { ...c, header: 'REFERENCE' } : c)),
      },
    };
    expect(fileTemplateSchema.safeParse(repeated).success).to.equal(false);
    expect(fileTemplateSchema.safeParse(t).success).to.equal(true);
  });
});
