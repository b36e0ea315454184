import { expect } from 'chai';
import ExcelJS from 'exceljs';
import {
  MAX_RESPONSE_FILE_BYTES,
  NotASpreadsheetError,
  readResponseTable,
} from '../../adapters/file/reader.js';

async function refusal(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, 'the file should have been refused').to.be.instanceOf(NotASpreadsheetError);
  return (err as Error).message;
}

describe('adapters: reading an insurer response file (XLSX and CSV)', () => {
  it('reads the first sheet of a workbook as text: numbers, dates, rich text, formula results, links', async () => {
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('Status');
    book.addWorksheet('Notes').addRow(['not read']);
    sheet.addRow(['Reference No', 'Status', 'UHID', 'Date']);
    sheet.addRow([
      'end_a',
      { richText: [{ text: 'Endor' }, { text: 'sed', font: { bold: true } }] },
      { formula: '"UH-"&"77"', result: 'UH-77' },
      new Date('2026-11-23T00:00:00Z'),
    ]);
    sheet.addRow([]);
    sheet.addRow([{ text: 'end_b', hyperlink: 'https://example.com' }, 'Rejected', 1234567, null]);
    const rows = await readResponseTable('r.XLSX', Buffer.from(await book.xlsx.writeBuffer()));
    expect(rows).to.deep.equal([
      { rowNumber: 1, cells: ['Reference No', 'Status', 'UHID', 'Date'] },
      { rowNumber: 2, cells: ['end_a', 'Endorsed', 'UH-77', '2026-11-23'] },
      { rowNumber: 4, cells: ['end_b', 'Rejected', '1234567'] },
    ]);
  });

  it('reads a CSV with a byte-order mark, quoted commas and ragged rows', async () => {
    const csv =
      '\ufeffreference,decision,rejection_reason\r\nend_a,REJECTED,"Age, over limit"\r\nend_b,APPROVED\r\n';
    expect(await readResponseTable('r.csv', Buffer.from(csv))).to.deep.equal([
      { rowNumber: 1, cells: ['reference', 'decision', 'rejection_reason'] },
      { rowNumber: 2, cells: ['end_a', 'REJECTED', 'Age, over limit'] },
      { rowNumber: 3, cells: ['end_b', 'APPROVED'] },
    ]);
  });

  it('refuses what is not a spreadsheet, without quoting the file', async () => {
    expect(await refusal(readResponseTable('r.pdf', Buffer.from('x')))).to.equal(
      'not a spreadsheet: the file name must end in .xlsx or .csv',
    );
    expect(await refusal(readResponseTable('r.xlsx', Buffer.from('reference,decision')))).to.equal(
      'not a spreadsheet: the file is not a readable XLSX workbook',
    );
    expect(await refusal(readResponseTable('r.csv', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00])))).to.equal(
      'not a spreadsheet: the CSV file holds binary data',
    );
    expect(await refusal(readResponseTable('r.csv', Buffer.from('a,b\r\n"secret name,x\r\n')))).to.match(
      /^not a spreadsheet: the CSV file cannot be read \(CSV_[A-Z_]+ at line \d+\)$/,
    );
    expect(
      await refusal(readResponseTable('r.csv', Buffer.alloc(MAX_RESPONSE_FILE_BYTES + 1, 'a'))),
    ).to.equal('the response file is larger than 20 MiB');
  });
});
