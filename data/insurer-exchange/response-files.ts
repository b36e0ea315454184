import type { InsurerAdapterName } from '../../domain/enums.js';
import type { ResponseRowOutcome } from '../../domain/insurer-exchange/response-file.js';
import type { SystemScope } from '../scope.js';
import { jsonbLiteral } from '../bulk-json.js';

/** The insurer of a code (one platform row per code, D12). */
export interface InsurerOfCode {
  insurerId: string;
  adapter: InsurerAdapterName;
  adapterSettings: unknown;
}

export async function insurerOfCode(system: SystemScope, code: string): Promise<InsurerOfCode | undefined> {
  const [row] = await system.sql<InsurerOfCode>(
    `select id as "insurerId", adapter, adapter_settings as "adapterSettings" from insurers where code = ?`,
    [code],
  );
  return row;
}

/** Every insurer code loaded with the `file` adapter. */
export async function fileInsurerCodes(system: SystemScope): Promise<string[]> {
  const rows = await system.sql<{ code: string }>(
    "select distinct code from insurers where adapter = 'file' order by code",
  );
  return rows.map((r) => r.code);
}

export interface ResponseFileKey {
  insurerCode: string;
  fileName: string;
  sha256: string;
}

export interface RecordedResponseFile extends ResponseFileKey {
  id: number;
  status: 'applied' | 'refused';
  error: string | null;
  rows: ResponseRowOutcome[];
  recordedAt: string;
}

const RECORD = `id::int as id, insurer_code as "insurerCode", file_name as "fileName", sha256, status, error, rows,
  to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "recordedAt"`;

export async function findResponseFile(
  system: SystemScope,
  key: ResponseFileKey,
): Promise<RecordedResponseFile | undefined> {
  const [row] = await system.sql<RecordedResponseFile>(
    `select ${RECORD} from insurer_response_files where insurer_code = ? and file_name = ? and sha256 = ?`,
    [key.insurerCode, key.fileName, key.sha256],
  );
  return row;
}

/**
 * Records a file's outcome once: when two ingests of the same file race, the first record stays
 * and both callers get it back (insert … on conflict do nothing, then read).
 */
export async function recordResponseFile(
  system: SystemScope,
  record: ResponseFileKey & {
    status: 'applied' | 'refused';
    error: string | null;
    rows: ResponseRowOutcome[];
  },
): Promise<RecordedResponseFile> {
  await system.sql(
    `insert into insurer_response_files (insurer_code, file_name, sha256, status, error, rows)
     values (?, ?, ?, ?, ?, ${jsonbLiteral(record.rows)})
     on conflict (insurer_code, file_name, sha256) do nothing`,
    // Up to 20,000 rows' outcomes: inlined as base64, not escaped a character at a time (data/bulk-json.ts).
    [record.insurerCode, record.fileName, record.sha256, record.status, record.error],
  );
  return (await findResponseFile(system, record))!;
}
