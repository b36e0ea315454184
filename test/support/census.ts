import ExcelJS from 'exceljs';
import { endorsementApi } from '../workflows/endorsement-support.js';
import { makeClient, makeEmployee, makeMember, makePolicy, type TestClient } from './factories.js';
import type { HttpClient } from './http.js';
import { CENSUS_COLUMNS, type CensusField } from '../../domain/census/rows.js';

/** A census row by field name (the templates' columns). */
export type CensusRowIn = Partial<Record<CensusField, string>>;

const HEADERS = CENSUS_COLUMNS.map((c) => c.header);
const cell = (v: string | undefined) =>
  v === undefined ? '' : /[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;

/** The rows as a CSV census with the template's header. */
export function censusCsv(rows: readonly CensusRowIn[]): Buffer {
  const lines = [
    HEADERS.join(','),
    ...rows.map((r) => CENSUS_COLUMNS.map((c) => cell(r[c.field])).join(',')),
  ];
  return Buffer.from(`${lines.join('\r\n')}\r\n`);
}

/** The rows as an XLSX census (first sheet, the template's header); dates as real date cells. */
export async function censusXlsx(rows: readonly CensusRowIn[]): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Census');
  sheet.addRow(HEADERS);
  for (const r of rows) {
    sheet.addRow(
      CENSUS_COLUMNS.map((c) => {
        const v = r[c.field];
        const date = v !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(v) ? new Date(`${v}T00:00:00Z`) : null;
        // A real date is a date cell, as HR's spreadsheet has it; anything else stays text.
        return date && !Number.isNaN(date.getTime()) && date.toISOString().startsWith(v!)
          ? date
          : (v ?? null);
      }),
    );
  }
  return Buffer.from(await book.xlsx.writeBuffer());
}

export const CSV = 'text/csv';
export const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** A client with one policy, an employee covered by it and one not, and an API to upload to. */
export interface Census {
  api: HttpClient;
  token: string;
  client: TestClient;
  clientId: string;
  policyId: string;
  covered: { id: string; employeeCode: string; email: string };
  uncovered: { id: string; employeeCode: string; email: string };
}

export async function census(): Promise<Census> {
  const client = await makeClient();
  const policy = await makePolicy(client.clientId);
  const covered = await makeEmployee(client.clientId);
  await makeMember(client.clientId, policy.id, covered);
  const uncovered = await makeEmployee(client.clientId);
  return {
    api: await endorsementApi(),
    token: client.token(),
    client,
    clientId: client.clientId,
    policyId: policy.id,
    covered,
    uncovered,
  };
}

/** The uncovered employee's ADDITION on the census's policy through the API (left open, PENDING). */
export const postUncoveredAddition = (w: Census, token = w.token) =>
  w.api.post('/v1/policy/endorsements', {
    token,
    body: {
      employee_id: w.uncovered.id,
      policy_id: w.policyId,
      type: 'ADDITION',
      coverage_start_date: '2026-12-01',
      coverage_end_date: '2027-03-31',
    },
  });

/** A new joiner's row: every detail a new employee needs, added from 2026-12-01. */
export const newJoiner = (code: string, o: CensusRowIn = {}): CensusRowIn => ({
  employee_code: code,
  name: `Joiner ${code}`,
  email: `${code.toLowerCase()}@example.com`,
  phone: '+919811111111',
  date_of_birth: '1992-02-29',
  gender: 'female',
  relationship: 'self',
  event_date: '2026-11-01',
  action: 'add',
  effective_date: '2026-12-01',
  ...o,
});
