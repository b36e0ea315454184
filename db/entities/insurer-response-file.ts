import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { ResponseRowOutcome } from '../../domain/insurer-exchange/response-file.js';
import { createdAt, text } from './columns.js';

/**
 * A response file read from a file insurer's inbox (D14), keyed by (insurer code, file name,
 * sha256): a second ingest of the same file answers this record. Not a tenant's row: one file may
 * answer endorsements of every client that uses the insurer code.
 */
export const InsurerResponseFileSchema = defineEntity({
  name: 'InsurerResponseFile',
  tableName: 'insurer_response_files',
  uniques: [
    {
      name: 'insurer_response_files_insurer_code_file_name_sha256_key',
      properties: ['insurerCode', 'fileName', 'sha256'],
    },
  ],
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    insurerCode: text(),
    fileName: text(),
    sha256: text(),
    /** `applied` (row by row) or `refused` (whole, with `error`). */
    status: text().$type<'applied' | 'refused'>(),
    error: text().nullable(),
    rows: p.json<ResponseRowOutcome[]>().defaultRaw(`'[]'`),
    createdAt: createdAt(),
  },
});
export type InsurerResponseFile = InferEntity<typeof InsurerResponseFileSchema>;
