import { expect } from 'chai';
import ExcelJS from 'exceljs';
import { NotASpreadsheetError, readResponseTable } from '../../adapters/file/reader.js';
import { tableRows } from '../../adapters/file/table-reader.js';
import { CENSUS_FILE_LIMITS, RESPONSE_FILE_LIMITS, type TableLimits } from '../../domain/upload-limits.js';
import { xlsxEmptyRows, xlsxSharedStrings, zipOf } from '../support/hostile-uploads.js';

/** What reading the file through the table reader ends in: its rows, or the refusal's words. */
async function read(name: string, file: Buffer, limits: TableLimits = CENSUS_FILE_LIMITS) {
  const rows: { rowNumber: number; cells: string[] }[] = [];
  try {
    for await (const row of tableRows(name, file, limits)) rows.push(row);
  } catch (err) {
    return (err as Error).message;
  }
  return rows;
}

describe('adapters: table files read within their bounds (domain/upload-limits.ts)', () => {
  it('counts blank CSV rows toward the row bound, and reads a file within it', async () => {
    const rows = CENSUS_FILE_LIMITS.rows;
    expect(await read('c.csv', Buffer.from(`a,b\n${',\n'.repeat(rows)}`))).to.equal(
      `the census has more than ${rows} rows (blank rows count)`,
    );
    expect(await read('c.csv', Buffer.from(`a,b\n${'\n'.repeat(rows - 2)}x,y\n`))).to.deep.equal([
      { rowNumber: 1, cells: ['a', 'b'] },
      { rowNumber: rows, cells: ['x', 'y'] },
    ]);
  });

  it('refuses a CSV row of too many cells or a cell of too many characters', async () => {
    expect(await read('c.csv', Buffer.from(`${'x,'.repeat(CENSUS_FILE_LIMITS.cellsPerRow)}x\n`))).to.equal(
      `a row of the census has more than ${CENSUS_FILE_LIMITS.cellsPerRow} cells`,
    );
    expect(await read('c.csv', Buffer.from(`a,${'x'.repeat(CENSUS_FILE_LIMITS.cellChars + 1)}\n`))).to.equal(
      `a cell of the census holds more than ${CENSUS_FILE_LIMITS.cellChars} characters`,
    );
    // An unterminated quote is cut off at a row's most characters, not buffered to the end of the file.
    expect(await read('c.csv', Buffer.from(`a,"${'x'.repeat(2 * 1024 * 1024)}`))).to.equal(
      `a cell of the census holds more than ${CENSUS_FILE_LIMITS.cellChars} characters`,
    );
  });

  it('counts empty <row/> elements and bounds the shared strings of a workbook', async () => {
    expect(await read('c.xlsx', xlsxEmptyRows())).to.equal(
      `the census has more than ${CENSUS_FILE_LIMITS.rows} rows (blank rows count)`,
    );
    expect(await read('c.xlsx', xlsxSharedStrings())).to.equal(
      `the census has more than ${CENSUS_FILE_LIMITS.sharedStrings} shared strings`,
    );
  });

  it('refuses a workbook that inflates past its bound, and a row number past the row bound', async () => {
    const bomb = zipOf([
      { name: 'docProps/app.xml', data: Buffer.alloc(CENSUS_FILE_LIMITS.inflatedBytes + 1, 0x20) },
    ]);
    expect(bomb.length).to.be.lessThan(200_000);
    expect(await read('c.xlsx', bomb)).to.equal('the census inflates to more than 64 MiB');
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('Census');
    sheet.addRow(['Employee Code']);
    sheet.getRow(CENSUS_FILE_LIMITS.rows + 1).getCell(1).value = 'far below';
    expect(await read('c.xlsx', Buffer.from(await book.xlsx.writeBuffer()))).to.equal(
      `the census has more than ${CENSUS_FILE_LIMITS.rows} rows (blank rows count)`,
    );
  });

  it('refuses a response file past its bounds with the same words, as not readable', async () => {
    const err = await readResponseTable('r.xlsx', xlsxEmptyRows()).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(NotASpreadsheetError);
    expect((err as Error).message).to.equal(
      `the response file has more than ${RESPONSE_FILE_LIMITS.rows} rows (blank rows count)`,
    );
  });
});
