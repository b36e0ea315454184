import { expect } from 'chai';
import { Readable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { insurerFileTable } from '../../domain/insurer-exchange/file.js';
import { fileTemplate } from '../../domain/insurer-exchange/file-templates/index.js';
import { writeInsurerFile } from '../../adapters/file/writer.js';
import { SAMPLE_ENDORSEMENTS } from '../support/insurer-file-samples.js';
import type { FileEndorsement } from '../../domain/insurer-exchange/file.js';

const WRITTEN_AT = new Date('2026-11-23T11:30:00Z');

/** What an insurer opening the file sees, cell by cell, for the three sample endorsements. */
// prettier-ignore
const EXPECTED: Record<string, { sheet: string; rows: (string | number)[][] }> = {
  'india-census': {
    sheet: 'Endorsement Census',
    rows: [
      ['Sr No', 'Policy No', 'Employee Code', 'Member Name', 'Relationship', 'Gender', 'DOB (DD/MM/YYYY)', 'Sum Insured', 'Effective Date', 'Endorsement Type', 'Reference No'],
      [1, 'GHI/2026/0042', 'E-1001', 'Asha Rao', 'Self', 'F', '07/03/1990', '500000', '02/11/2026', 'Addition', 'end_addition0000000000001'],
      [2, 'GHI/2026/0042', 'E-1001', 'Vikram Rao', 'Spouse', 'M', '23/11/1988', '500000', '02/11/2026', 'Addition', 'end_addition0000000000001'],
      [3, 'GHI/2026/0042', 'E-1001', 'Anya Rao', 'Child', 'F', '30/01/2019', '500000', '02/11/2026', 'Addition', 'end_addition0000000000001'],
      [4, 'GHI/2026/0042', 'E-0777', 'Rahul Mehta', 'Self', 'M', '01/12/1985', '300000.50', '15/11/2026', 'Deletion', 'end_deletion0000000000002'],
      [5, 'GHI/2026/0042', 'E-0500', 'Sam "Sky" Iyer, Jr.', 'Self', 'O', '28/02/1999', '500000', '01/04/2026', 'Correction', 'end_correction00000000003'],
    ],
  },
  generic: {
    sheet: 'Endorsements',
    rows: [
      ['reference', 'action', 'policy_number', 'employee_code', 'member_name', 'relationship', 'gender', 'date_of_birth', 'sum_insured', 'effective_date', 'coverage_end_date'],
      ['end_addition0000000000001', 'ADDITION', 'GHI/2026/0042', 'E-1001', 'Asha Rao', 'SELF', 'FEMALE', '1990-03-07', '500000', '2026-11-02', '2027-03-31'],
      ['end_addition0000000000001', 'ADDITION', 'GHI/2026/0042', 'E-1001', 'Vikram Rao', 'SPOUSE', 'MALE', '1988-11-23', '500000', '2026-11-02', '2027-03-31'],
      ['end_addition0000000000001', 'ADDITION', 'GHI/2026/0042', 'E-1001', 'Anya Rao', 'CHILD', 'FEMALE', '2019-01-30', '500000', '2026-11-02', '2027-03-31'],
      ['end_deletion0000000000002', 'DELETION', 'GHI/2026/0042', 'E-0777', 'Rahul Mehta', 'SELF', 'MALE', '1985-12-01', '300000.50', '2026-11-15', '2026-11-15'],
      ['end_correction00000000003', 'CORRECTION', 'GHI/2026/0042', 'E-0500', 'Sam "Sky" Iyer, Jr.', 'SELF', 'OTHER', '1999-02-28', '500000', '2026-04-01', '2027-03-31'],
    ],
  },
};

async function readXlsx(content: Buffer) {
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(content as unknown as ArrayBuffer);
  expect(book.worksheets).to.have.length(1);
  const sheet = book.worksheets[0]!;
  const rows: unknown[][] = [];
  sheet.eachRow((row) => rows.push((row.values as unknown[]).slice(1)));
  return { sheet: sheet.name, rows, headerBold: sheet.getRow(1).font?.bold };
}

/** Names and a code as an attacker sends them (stored before the input rules refused them). */
const HOSTILE_NAMES = [
  '=HYPERLINK("http://evil.example","x")',
  "+cmd|' /C calc'!A0",
  "-2+3+cmd|' /C calc'!A0",
  "@SUM(1+1)*cmd|' /C calc'!A0",
  '\t=1+1',
  '\r=1+1',
];
const HOSTILE: FileEndorsement[] = HOSTILE_NAMES.map((name, i) => ({
  ...SAMPLE_ENDORSEMENTS[1]!,
  endorsementId: `end_hostile00000000000000${i}`,
  employeeCode: i === 0 ? '=1+2' : `x;=1+${i}`,
  employee: { ...SAMPLE_ENDORSEMENTS[1]!.employee, name },
}));

/** A cell Excel would evaluate: a formula cell, or a value starting as one (OWASP's list). */
const live = (cell: ExcelJS.Cell) =>
  cell.type === ExcelJS.ValueType.Formula ||
  cell.formula !== undefined ||
  /^[=+\-@\t\r]/.test(typeof cell.value === 'string' ? cell.value : '');

/** Every cell of the workbook's first sheet: `[address, value]` of the live ones. */
function liveCells(book: ExcelJS.Workbook): [string, unknown][] {
  const out: [string, unknown][] = [];
  book.worksheets[0]!.eachRow((row) =>
    row.eachCell((cell) => {
      if (live(cell)) out.push([cell.address, cell.value]);
    }),
  );
  return out;
}

describe('adapters: insurer file writer (D14)', () => {
  for (const name of ['india-census', 'generic']) {
    const expected = EXPECTED[name]!;
    const table = () => insurerFileTable(fileTemplate(name), SAMPLE_ENDORSEMENTS);

    it(`writes the ${name} template as XLSX, cell by cell, in its sheet`, async () => {
      const read = await readXlsx(await writeInsurerFile(fileTemplate(name), table(), 'xlsx', WRITTEN_AT));
      expect(read.sheet).to.equal(expected.sheet);
      expect(read.rows).to.deep.equal(expected.rows);
      expect(read.headerBold).to.equal(true);
    });

    it(`writes the ${name} template as CSV, cell by cell, quoting what needs it`, async () => {
      const csv = await writeInsurerFile(fileTemplate(name), table(), 'csv', WRITTEN_AT);
      const rows: string[][] = parse(csv);
      expect(rows).to.deep.equal(expected.rows.map((r) => r.map(String)));
      expect(csv.toString()).to.contain('"Sam ""Sky"" Iyer, Jr."');
    });
  }

  for (const name of ['india-census', 'generic']) {
    const table = () => insurerFileTable(fileTemplate(name), HOSTILE);

    it(`writes hostile names and codes into the ${name} CSV as text no spreadsheet runs`, async () => {
      const csv = await writeInsurerFile(fileTemplate(name), table(), 'csv', WRITTEN_AT);
      const book = new ExcelJS.Workbook();
      await book.csv.read(Readable.from([csv]));
      expect(liveCells(book)).to.deep.equal([]);
      // The text is all there, behind the quote that makes it text.
      const rows: string[][] = parse(csv);
      const cells = rows.flat();
      for (const hostile of HOSTILE_NAMES) expect(cells).to.include(`'${hostile}`);
      expect(cells).to.include("'=1+2");
      // A cell with a `;` stays one quoted cell: a reader splitting on `;` cannot start a new one there.
      expect(csv.toString()).to.contain('"x;=1+1"');
    });

    it(`writes hostile names and codes into the ${name} XLSX as plain quoted strings`, async () => {
      const book = new ExcelJS.Workbook();
      await book.xlsx.load(
        (await writeInsurerFile(fileTemplate(name), table(), 'xlsx', WRITTEN_AT)) as unknown as ArrayBuffer,
      );
      expect(liveCells(book)).to.deep.equal([]);
      const values: unknown[] = [];
      book.worksheets[0]!.eachRow((row) => row.eachCell((cell) => values.push(cell.value)));
      // XLSX's XML reads a carriage return back as a line feed; the quote is in front either way.
      for (const hostile of HOSTILE_NAMES) expect(values).to.include(`'${hostile.replace('\r', '\n')}`);
      expect(values).to.include("'=1+2");
    });
  }

  it('writes a header-only file for no endorsements', async () => {
    const read = await readXlsx(
      await writeInsurerFile(
        fileTemplate('generic'),
        insurerFileTable(fileTemplate('generic'), []),
        'xlsx',
        WRITTEN_AT,
      ),
    );
    expect(read.rows).to.deep.equal([EXPECTED.generic!.rows[0]]);
  });
});
