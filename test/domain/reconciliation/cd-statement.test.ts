import { expect } from 'chai';
import {
  compareStatement,
  countStatementDifferences,
  MalformedStatement,
  readStatement,
  statementFilePolicy,
  unrecordedTopUps,
  type CdStatement,
} from '../../../domain/reconciliation/cd-statement.js';

/** A statement table from CSV-like lines (the header first), numbered as in the file. */
const table = (...lines: string[]) => lines.map((l, i) => ({ rowNumber: i + 1, cells: l.split('|') }));

const STATEMENT = table(
  'Amount|Type|Date|Reference|Narration',
  '10,000.00|opening|01/04/2026||',
  '5000|posting|2026-04-03|NEFT-1|top-up',
  '-3650.00|posting|05/04/2026|end_a|addition',
  '1200.50|posting|2026-04-07|end_b|deletion refund',
  '2500|posting|2026-04-08|NEFT-9|top-up we never heard of',
  '15050.50|closing|30/04/2026||',
);

describe('the CD statement', () => {
  it('reads opening, postings (signed, paise exact, Indian separators) and closing in any column order', () => {
    const s = readStatement(STATEMENT);
    expect(s).to.deep.include({
      from: '2026-04-01',
      to: '2026-04-30',
      opening: 1_000_000n,
      closing: 1_505_050n,
    });
    expect(s.postings.map((p) => [p.row, p.date, p.reference, p.amount])).to.deep.equal([
      [3, '2026-04-03', 'NEFT-1', 500_000n],
      [4, '2026-04-05', 'end_a', -365_000n],
      [5, '2026-04-07', 'end_b', 120_050n],
      [6, '2026-04-08', 'NEFT-9', 250_000n],
    ]);
  });

  it('refuses a malformed statement whole, naming the row and column but never the value', () => {
    const refused = (...lines: string[]) => {
      try {
        readStatement(table(...lines));
      } catch (err) {
        expect(err).to.be.instanceOf(MalformedStatement);
        return (err as Error).message;
      }
      throw new Error('not refused');
    };
    const head = 'type,date,reference,amount'.replaceAll(',', '|');
    expect(refused('type|date|amount')).to.equal('missing required headers: reference');
    expect(refused(head, 'opening|2026-04-01||1.234', 'closing|2026-04-30||1')).to.equal(
      'row 2: amount is not an amount in rupees (at most two decimals)',
    );
    expect(refused(head, 'opening|31/02/2026||1', 'closing|2026-04-30||1')).to.contain(
      'row 2: date is not a date',
    );
    expect(
      refused(head, 'opening|2026-04-01||1', 'posting|2026-04-02|R|1', 'posting|2026-04-03|R|2'),
    ).to.equal('row 4: reference repeats an earlier posting');
    expect(refused(head, 'opening|2026-04-01||1', 'refund|2026-04-02|R|1')).to.equal(
      'row 3: type is not opening, posting or closing',
    );
    expect(refused(head, 'opening|2026-04-01||1')).to.equal(
      'the statement needs one opening and one closing row',
    );
    expect(
      refused(head, 'opening|2026-04-01||1', 'posting|2026-05-02|R|1', 'closing|2026-04-30||2'),
    ).to.equal("row 3: date is outside the statement's period");
    expect(refused()).to.equal('the statement is empty (no header row)');
  });

  it('records each kind of difference, adding up our entries under one reference', () => {
    const s: CdStatement = readStatement(STATEMENT);
    const differences = compareStatement(s, {
      opening: 1_000_000n,
      closing: 1_255_000n,
      postings: [
        { reference: 'NEFT-1', amount: 500_000n },
        { reference: 'end_a', amount: -365_000n },
        { reference: 'end_b', amount: 100_000n },
        { reference: 'end_b', amount: 20_000n },
        { reference: 'NEFT-0', amount: 100_000n },
      ],
    });
    expect(differences).to.deep.equal([
      { kind: 'closing_mismatch', reference: null, row: null, ours: '12550.00', theirs: '15050.50' },
      { kind: 'amount_mismatch', reference: 'end_b', row: 5, ours: '1200.00', theirs: '1200.50' },
      { kind: 'posting_there_not_here', reference: 'NEFT-9', row: 6, ours: null, theirs: '2500.00' },
      { kind: 'posting_here_not_there', reference: 'NEFT-0', row: null, ours: '1000.00', theirs: null },
    ]);
  });

  it('finds nothing when the statement and the ledger agree', () => {
    const s = readStatement(STATEMENT);
    const ours = { opening: s.opening, closing: s.closing, postings: s.postings.map((p) => ({ ...p })) };
    expect(compareStatement(s, ours)).to.deep.equal([]);
  });

  it('offers only positive postings that are no endorsement of ours as top-ups', () => {
    const s = readStatement(STATEMENT);
    const differences = compareStatement(s, { opening: s.opening, closing: s.closing, postings: [] });
    const offered = unrecordedTopUps(s, differences, (r) => r.startsWith('end_'));
    expect(offered.map((p) => p.reference)).to.deep.equal(['NEFT-1', 'NEFT-9']);
  });
});

describe("a CD statement's file name and counts", () => {
  it('names its policy as CDSTATEMENT_<policy number>_…csv|xlsx in any case; other names are not statements', () => {
    expect(statementFilePolicy('CDSTATEMENT_CARE-GH-1_202611.csv')).to.equal('CARE-GH-1');
    expect(statementFilePolicy('cdstatement_care-gh-1_x.XLSX')).to.equal('care-gh-1');
    expect(statementFilePolicy('ROSTER_CARE-GH-1_202611.csv')).to.equal(null);
    expect(statementFilePolicy('CDSTATEMENT_CARE-GH-1_202611.pdf')).to.equal(null);
    expect(statementFilePolicy('CDSTATEMENT_CARE/GH/1_202611.csv')).to.equal(null);
  });

  it('counts every kind, zero included', () => {
    const none = { reference: null, row: null, ours: null, theirs: null };
    expect(
      countStatementDifferences([
        { ...none, kind: 'amount_mismatch' },
        { ...none, kind: 'amount_mismatch' },
        { ...none, kind: 'opening_mismatch' },
      ]),
    ).to.deep.equal({
      opening_mismatch: 1,
      closing_mismatch: 0,
      posting_there_not_here: 0,
      posting_here_not_there: 0,
      amount_mismatch: 2,
    });
  });
});
