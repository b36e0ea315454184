import type { EntityManager } from '@mikro-orm/postgresql';
import { transportFor } from '../adapters/file/settings.js';
import { fileTemplate } from '../domain/insurer-file-templates/index.js';
import { writeInsurerFile } from '../adapters/file/writer.js';
import { listEndorsementsAwaitingCutOff, type FileEndorsementRow } from '../data/insurer-files.js';
import { SystemScope } from '../data/scope.js';
import type { FileAdapterSettings } from '../domain/insurer-adapter-settings.js';
import { cutOffDate, insurerFileName, insurerFileTable, type FileFormat } from '../domain/insurer-file.js';

/** Cut-offs and the dates their files carry are Indian time (D13). */
const CUT_OFF_TIME_ZONE = 'Asia/Kolkata';

/** One delivered file: ids and counts only (no personal data), safe to log and to return. */
export interface DeliveredFile {
  file_name: string;
  format: FileFormat;
  destination: string;
  client_id: string;
  policy_id: string;
  policy_number: string;
  /** The endorsements the file carries, which now count as delivered to the insurer. */
  endorsement_ids: string[];
  /** Data rows (people), the header not counted. */
  rows: number;
}

/** A file insurer's waiting endorsements, one group per (client, policy), in listing order. */
function byPolicy(rows: readonly FileEndorsementRow[]): FileEndorsementRow[][] {
  const groups = new Map<string, FileEndorsementRow[]>();
  for (const row of rows) {
    const key = `${row.clientId}/${row.policyId}`;
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  return [...groups.values()];
}

/**
 * The policy number a file is named by. Two clients' policies whose numbers read the same in a file
 * name at one insurer code would share a name and one file would replace the other, so the second
 * one met also carries its policy id's tail.
 */
function fileTag(row: FileEndorsementRow, taken: Set<string>, named: (tag: string) => string): string {
  const tag = taken.has(named(row.policyNumber))
    ? `${row.policyNumber}-${row.policyId.slice(-8)}`
    : row.policyNumber;
  taken.add(named(tag));
  return tag;
}

/**
 * One cut-off of a file insurer (D14): lists its reviewed endorsements waiting up to `cutOff`,
 * writes one file per policy and format in its template, delivers each, and returns what was
 * delivered. Moving the endorsements to SENT_TO_INSURER is the caller's next step, only after this
 * returns. Idempotency: the same `cutOff` lists the same endorsements (less any that moved on),
 * file names come from (insurer, policy, cut-off date), and a delivery replaces a file of the same
 * name, so running a cut-off again leaves one file per policy and format, never a second one.
 */
export async function deliverCutOff(
  deps: { em: EntityManager; dataDir: string },
  q: { insurerCode: string; settings: FileAdapterSettings; cutOff: Date },
): Promise<DeliveredFile[]> {
  const rows = await listEndorsementsAwaitingCutOff(SystemScope.of(deps.em), {
    insurerCode: q.insurerCode,
    reviewedBefore: q.cutOff,
  });
  if (rows.length === 0) return [];
  const template = fileTemplate(q.settings.template);
  const transport = await transportFor(q.settings, { dataDir: deps.dataDir, insurerCode: q.insurerCode });
  const date = cutOffDate(q.cutOff, CUT_OFF_TIME_ZONE);
  const delivered: DeliveredFile[] = [];
  const taken = new Set<string>();
  for (const group of byPolicy(rows)) {
    const first = group[0]!;
    const table = insurerFileTable(template, group);
    const policyNumber = fileTag(first, taken, (tag) =>
      insurerFileName({ insurerCode: q.insurerCode, policyNumber: tag, cutOffDate: date }, 'csv'),
    );
    for (const format of q.settings.formats) {
      const name = insurerFileName({ insurerCode: q.insurerCode, policyNumber, cutOffDate: date }, format);
      await transport.deliver(name, await writeInsurerFile(template, table, format, q.cutOff));
      delivered.push({
        file_name: name,
        format,
        destination: transport.destination,
        client_id: first.clientId,
        policy_id: first.policyId,
        policy_number: first.policyNumber,
        endorsement_ids: group.map((r) => r.endorsementId),
        rows: table.length - 1,
      });
    }
  }
  return delivered;
}
