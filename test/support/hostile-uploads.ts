import { crc32, deflateRawSync } from 'node:zlib';

/**
 * Files built to cost a reader the most per byte sent, as found by an attack on the census upload:
 * each is small on the wire and far past one of domain/upload-limits.ts's bounds.
 */

/** A zip of the entries in order (deflated), written by hand: no zip library is a dependency. */
export function zipOf(entries: readonly { name: string; data: Buffer }[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const { name, data } of entries) {
    const packed = deflateRawSync(data, { level: 9 });
    const fileName = Buffer.from(name);
    const sum = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8); // deflated
    local.writeUInt32LE(sum, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(fileName.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(sum, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(fileName.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, fileName, packed);
    centrals.push(central, fileName);
    offset += local.length + fileName.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const WORKBOOK =
  '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" ' +
  'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>' +
  '<sheet name="Census" sheetId="1" r:id="rId1"/></sheets></workbook>';
const RELS =
  '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
  '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" ' +
  'Target="worksheets/sheet1.xml"/></Relationships>';
const HEADER_ROW =
  '<row r="1"><c r="A1" t="inlineStr"><is><t>Employee Code</t></is></c><c r="B1" t="inlineStr"><is><t>Action</t></is></c>' +
  '<c r="C1" t="inlineStr"><is><t>Effective Date</t></is></c></row>';

/** A workbook of the given sheet body and optional shared strings table (read before the sheet). */
function workbook(sheetData: string, sharedStrings?: string): Buffer {
  const parts = [
    { name: 'xl/workbook.xml', data: Buffer.from(WORKBOOK) },
    { name: 'xl/_rels/workbook.xml.rels', data: Buffer.from(RELS) },
  ];
  parts.push({
    name: 'xl/sharedStrings.xml',
    data: Buffer.from(
      `<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">${sharedStrings ?? ''}</sst>`,
    ),
  });
  parts.push({
    name: 'xl/worksheets/sheet1.xml',
    data: Buffer.from(
      `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${sheetData}</sheetData></worksheet>`,
    ),
  });
  return zipOf(parts);
}

/** The census header: a file without its required columns is refused at its first row. */
const CENSUS_HEADER = 'Employee Code,Action,Effective Date\n';

/** A census header and a million one-character rows: ~2 MB. */
export const csvMillionRows = (): Buffer => Buffer.from(`${CENSUS_HEADER}${'a\n'.repeat(1_000_000)}`);

/** A census header and just under 10 MiB of empty rows (`,`). */
export const csvEmptyRows = (): Buffer =>
  Buffer.from(`${CENSUS_HEADER}${',\n'.repeat(Math.floor((10 * 1024 * 1024 - 64) / 2))}`);

/** A ~50 KB workbook whose sheet holds 5 million empty rows after its header. */
export const xlsxEmptyRows = (): Buffer => workbook(HEADER_ROW + '<row/>'.repeat(5_000_000));

/** A ~200 KB workbook whose shared strings table holds 5 million entries. */
export const xlsxSharedStrings = (): Buffer => workbook(HEADER_ROW, '<si><t>a</t></si>'.repeat(5_000_000));

/** `{"rows":[{},{},…]}` of about `bytes` bytes: a value every three bytes. */
export const jsonManyNodes = (bytes: number): Buffer =>
  Buffer.from(`{"rows":[${'{},'.repeat(Math.floor((bytes - 20) / 3))}{}]}`);

/** `{"rows":[[[[…]]]]}` nested `levels` deep. */
export const jsonDeep = (levels: number): Buffer =>
  Buffer.from(`{"rows":${'['.repeat(levels)}${']'.repeat(levels)}}`);
