import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { acknowledgementCsv } from '../../adapters/file/acknowledgement.js';
import { acknowledgementTable } from '../../domain/insurer-exchange/response-file.js';
import { neutraliseText, writeCsv, writeXlsx } from '../../infra/spreadsheet-files.js';
import { censusTemplateCsv, censusTemplateXlsx } from '../../usecases/census/template.js';
import { CENSUS_COLUMNS } from '../../domain/census/rows.js';

/** OWASP's formula leads, each with a payload behind it. */
const LEADS = ['=1+2', '+1+2', '-1+2', '@SUM(1)', '\t=1+2', '\r=1+2'];

/** The cells a spreadsheet would evaluate (a formula, or a value starting as one). */
function liveCells(book: ExcelJS.Workbook): unknown[] {
  const out: unknown[] = [];
  book.worksheets[0]!.eachRow((row) =>
    row.eachCell((cell) => {
      const text = typeof cell.value === 'string' ? cell.value : '';
      if (cell.type === ExcelJS.ValueType.Formula || /^[=+\-@\t\r]/.test(text)) out.push(cell.value);
    }),
  );
  return out;
}

async function readCsv(content: Buffer | string): Promise<ExcelJS.Workbook> {
  const book = new ExcelJS.Workbook();
  await book.csv.read(Readable.from([Buffer.from(content)]));
  return book;
}

async function readXlsx(content: Buffer): Promise<ExcelJS.Workbook> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(content as unknown as ArrayBuffer);
  return book;
}

describe('infra: the one spreadsheet writer', () => {
  it('puts a quote in front of text starting as a formula, and leaves other text alone', () => {
    for (const lead of LEADS) expect(neutraliseText(lead)).to.equal(`'${lead}`);
    for (const plain of ['Asha Rao', 'E-1001', "O'Brien", ' =1', '1-2', '', 'x;=1+2'])
      expect(neutraliseText(plain)).to.equal(plain);
  });

  it('writes CSV with every text cell quoted, numbers bare, and no cell a spreadsheet runs', async () => {
    const csv = writeCsv([
      ['name', 'amount'],
      ...LEADS.map((lead) => [lead, 1]),
      ['-500', -500],
      ['x;=1+2', 0],
    ]);
    expect(csv.toString().split('\r\n').slice(-3)).to.deep.equal(['"\'-500",-500', '"x;=1+2",0', '']);
    expect(parse(csv)).to.deep.equal([
      ['name', 'amount'],
      ...LEADS.map((lead) => [`'${lead}`, '1']),
      ["'-500", '-500'],
      ['x;=1+2', '0'],
    ]);
    const book = await readCsv(csv);
    expect(liveCells(book)).to.deep.equal([]);
    // A number we wrote stays a number for the spreadsheet, a negative one included.
    expect(book.worksheets[0]!.getCell('B8').value).to.equal(-500);
  });

  it('writes XLSX with plain values only: text quoted as in CSV, numbers as numeric cells', async () => {
    const book = await readXlsx(
      await writeXlsx([['name', 'amount'], ...LEADS.map((lead) => [lead, -1])], {
        sheetName: 'Sheet',
        widths: 'content',
      }),
    );
    expect(liveCells(book)).to.deep.equal([]);
    const sheet = book.worksheets[0]!;
    expect(sheet.getCell('A2').value).to.equal("'=1+2");
    expect(sheet.getCell('B2').type).to.equal(ExcelJS.ValueType.Number);
    expect(sheet.getCell('B2').value).to.equal(-1);
  });

  it('refuses a number that is not finite rather than write it as text', () => {
    for (const n of [NaN, Infinity, -Infinity])
      expect(() => writeCsv([[n]])).to.throw(TypeError, /finite number/);
  });

  it('writes an acknowledgement echoing a hostile reference as quoted text', async () => {
    const ack = acknowledgementCsv(
      acknowledgementTable({
        error: null,
        rows: [
          {
            row: 2,
            reference: '=HYPERLINK("http://evil.example","x")',
            result: 'refused',
            detail: 'unknown reference',
          },
        ],
      }),
    );
    expect(parse(ack)).to.deep.equal([
      ['row', 'reference', 'result', 'detail'],
      ['2', '\'=HYPERLINK("http://evil.example","x")', 'refused', 'unknown reference'],
    ]);
    expect(liveCells(await readCsv(ack))).to.deep.equal([]);
  });

  it('writes the census templates (CSV and XLSX) through it: the header row', async () => {
    const headers = CENSUS_COLUMNS.map((c) => c.header);
    expect(parse(censusTemplateCsv())).to.deep.equal([headers]);
    const book = await readXlsx(await censusTemplateXlsx());
    expect(book.worksheets[0]!.name).to.equal('Census');
    expect(book.worksheets[0]!.getRow(1).values).to.deep.equal([undefined, ...headers]);
    expect(book.worksheets[0]!.getRow(1).font?.bold).to.equal(true);
  });

  it('is the only writer of CSV or XLSX in the service', () => {
    const root = path.resolve(import.meta.dirname, '../..');
    const dirs = [
      'api',
      'activities',
      'adapters',
      'admin',
      'config',
      'domain',
      'infra',
      'scripts',
      'usecases',
      'worker',
      'workflows',
    ];
    const files = (dir: string): string[] =>
      !fs.existsSync(dir)
        ? []
        : fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
            const full = path.join(dir, e.name);
            return e.isDirectory() ? files(full) : e.name.endsWith('.ts') ? [full] : [];
          });
    const WRITES = /csv-stringify|\.writeBuffer\(|\.xlsx\.write|\.csv\.write|addWorksheet\(|WorkbookWriter/;
    const writers = dirs
      .flatMap((d) => files(path.join(root, d)))
      .filter((f) => WRITES.test(fs.readFileSync(f, 'utf8')))
      .map((f) => path.relative(root, f));
    expect(writers).to.deep.equal(['infra/spreadsheet-files.ts']);
  });
});
