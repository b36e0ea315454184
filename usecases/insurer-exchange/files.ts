import type { EntityManager } from '@mikro-orm/postgresql';
import { transportFor } from '../../adapters/file/settings.js';
import { fileTemplate } from '../../domain/insurer-exchange/file-templates/index.js';
import { writeInsurerFile } from '../../adapters/file/writer.js';
import {
  claimCutOff,
  claimWithdrawals,
  listClaimedByCutOff,
  readFileEndorsementsAcrossClients,
  type ClaimedFileRow,
} from '../../data/insurer-exchange/files.js';
import { SystemScope } from '../../data/scope.js';
import type { FileAdapterSettings } from '../../domain/insurer-exchange/adapter-settings.js';
import {
  cutOffDate,
  cutOffTime,
  insurerFileName,
  insurerFileTable,
  type DeliveredFile,
  type FileFormat,
  type PlannedPolicyFile,
} from '../../domain/insurer-exchange/file.js';

/** Cut-offs and the dates their files carry are Indian time (D13). */
export const CUT_OFF_TIME_ZONE = 'Asia/Kolkata';

export type { DeliveredFile, PlannedPolicyFile };

interface CutOffQuery {
  insurerCode: string;
  settings: FileAdapterSettings;
  cutOff: Date;
}

/** A file insurer's claimed endorsements, one group per (client, policy), in listing order. */
function byPolicy(rows: readonly ClaimedFileRow[]): ClaimedFileRow[][] {
  const groups = new Map<string, ClaimedFileRow[]>();
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
function fileTag(row: ClaimedFileRow, taken: Set<string>, named: (tag: string) => string): string {
  const tag = taken.has(named(row.policyNumber))
    ? `${row.policyNumber}-${row.policyId.slice(-8)}`
    : row.policyNumber;
  taken.add(named(tag));
  return tag;
}

/**
 * Plans one cut-off of a file insurer (D14): claims its reviewed endorsements queued up to
 * `cutOff` (data/insurer-exchange/files.ts claimCutOff: each endorsement belongs to one cut-off) and the
 * withdrawals queued up to it (claimWithdrawals), then lists everything this cut-off claimed, one
 * file per policy and format. Idempotent: a retry claims
 * nothing new and plans the same files with the same names (insurer, policy, cut-off instant).
 */
export async function planCutOff(em: EntityManager, q: CutOffQuery): Promise<PlannedPolicyFile[]> {
  const system = SystemScope.of(em);
  await claimCutOff(system, { insurerCode: q.insurerCode, cutOff: q.cutOff });
  await claimWithdrawals(system, { insurerCode: q.insurerCode, cutOff: q.cutOff });
  const rows = await listClaimedByCutOff(system, { insurerCode: q.insurerCode, cutOff: q.cutOff });
  const stamp = {
    insurerCode: q.insurerCode,
    cutOffDate: cutOffDate(q.cutOff, CUT_OFF_TIME_ZONE),
    cutOffTime: cutOffTime(q.cutOff, CUT_OFF_TIME_ZONE),
  };
  const taken = new Set<string>();
  return byPolicy(rows).map((group) => {
    const first = group[0]!;
    const policyNumber = fileTag(first, taken, (tag) =>
      insurerFileName({ ...stamp, policyNumber: tag }, 'csv'),
    );
    return {
      client_id: first.clientId,
      policy_id: first.policyId,
      policy_number: first.policyNumber,
      endorsement_ids: group.filter((r) => !r.withdrawal).map((r) => r.endorsementId),
      withdrawal_ids: group.filter((r) => r.withdrawal).map((r) => r.endorsementId),
      files: q.settings.formats.map((format) => ({
        file_name: insurerFileName({ ...stamp, policyNumber }, format),
        format,
      })),
    };
  });
}

/**
 * Writes one planned policy's file in one format and delivers it. The rows are read at write time by
 * the planned ids (personal data goes only into the file). Delivery writes under a temporary name
 * and renames over the final one, so a retry replaces the same file: the endorsements are in one
 * delivered file whatever the number of attempts. Throws InsurerDeliveryError (retryable or not).
 */
export async function deliverPlannedFile(
  deps: { em: EntityManager; dataDir: string },
  q: CutOffQuery & { policy: PlannedPolicyFile; format: FileFormat },
): Promise<DeliveredFile> {
  const planned = q.policy.files.find((f) => f.format === q.format);
  if (!planned) throw new Error(`cut-off plan has no ${q.format} file for policy ${q.policy.policy_id}`);
  const withdrawals = new Set(q.policy.withdrawal_ids ?? []);
  const rows = (
    await readFileEndorsementsAcrossClients(SystemScope.of(deps.em), [
      ...q.policy.endorsement_ids,
      ...withdrawals,
    ])
  ).map((r) => ({ ...r, withdrawal: withdrawals.has(r.endorsementId) }));
  const template = fileTemplate(q.settings.template);
  const table = insurerFileTable(template, rows);
  const transport = await transportFor(q.settings, { dataDir: deps.dataDir, insurerCode: q.insurerCode });
  await transport.deliver(planned.file_name, await writeInsurerFile(template, table, q.format, q.cutOff));
  return {
    file_name: planned.file_name,
    format: q.format,
    destination: transport.destination,
    client_id: q.policy.client_id,
    policy_id: q.policy.policy_id,
    policy_number: q.policy.policy_number,
    endorsement_ids: rows.filter((r) => !r.withdrawal).map((r) => r.endorsementId),
    withdrawal_ids: rows.filter((r) => r.withdrawal).map((r) => r.endorsementId),
    rows: table.length - 1,
  };
}

/**
 * One whole cut-off in one call (plan, then every file): what the batch workflow does step by step
 * with each step an activity. Moving the endorsements to SENT_TO_INSURER is the caller's next step,
 * only after this returns. Idempotent as its parts: a repeat leaves one file per policy and format.
 */
export async function deliverCutOff(
  deps: { em: EntityManager; dataDir: string },
  q: CutOffQuery,
): Promise<DeliveredFile[]> {
  const delivered: DeliveredFile[] = [];
  for (const policy of await planCutOff(deps.em, q)) {
    for (const { format } of policy.files)
      delivered.push(await deliverPlannedFile(deps, { ...q, policy, format }));
  }
  return delivered;
}
