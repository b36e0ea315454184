import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { acknowledgementCsv } from '../../adapters/file/acknowledgement.js';
import { NotASpreadsheetError, readResponseTable } from '../../adapters/file/reader.js';
import { transportFor } from '../../adapters/file/settings.js';
import type { InboxFolder, InsurerExchange } from '../../adapters/file/transport.js';
import { dependentsOfRoutedEndorsements } from '../../data/insurer-exchange/principals.js';
import { InsurerScope } from '../../data/insurer-exchange/scope.js';
import {
  findResponseFile,
  insurerOfCode,
  recordResponseFile,
  type RecordedResponseFile,
} from '../../data/insurer-exchange/response-files.js';
import {
  listExchangePoliciesOfInsurerCode,
  type ExchangePolicy,
} from '../../data/insurer-exchange/policies.js';
import { SystemScope } from '../../data/scope.js';
import { fileNamePart } from '../../domain/insurer-exchange/file.js';
import { rosterFilePolicy } from '../../domain/reconciliation/roster.js';
import { statementFilePolicy } from '../../domain/reconciliation/cd-statement.js';
import {
  storedAdapterConfig,
  type FileAdapterSettings,
} from '../../domain/insurer-exchange/adapter-settings.js';
import type { DecisionAnswer } from '../../domain/insurer-exchange/decisions.js';
import { coveredRelationships } from '../../domain/endorsements/endorsement.js';
import { looksLikeId } from '../../domain/ids.js';
import type { FileTemplate } from '../../domain/insurer-exchange/file.js';
import { fileTemplate } from '../../domain/insurer-exchange/file-templates/index.js';
import { planResponseRows, type CandidateDependent } from '../../domain/insurer-exchange/response-people.js';
import {
  acknowledgementName,
  acknowledgementTable,
  countResults,
  parseResponseTable,
  personOutcome,
  rowOutcome,
  type ParsedResponseFile,
  type ResponseLayout,
  type ResponseRow,
  type ResponseRowOutcome,
  type ResultCounts,
} from '../../domain/insurer-exchange/response-file.js';
import type { Logger } from '../../infra/logger.js';
import { submitInsurerDecisions } from './decisions.js';
import { reconcileCdStatement } from '../reconciliation/cd-statement.js';
import { reconcileRoster } from '../reconciliation/roster.js';

/** Unknown insurer code, not a file insurer, no such file: the operator's input, not a fault. */
export class IngestError extends Error {}

export interface IngestDeps {
  em: EntityManager;
  temporal: Client;
  dataDir: string;
  /** Where a roster file's reconciliation workflow runs. */
  taskQueue: string;
  logger?: Logger;
  /** Starts webhook deliveries after their commit (the activity's); without it the sweeper starts them. */
  deliver?: (deliveryIds: readonly string[]) => Promise<unknown>;
}

/** One response file's outcome: ids, results and our answers (no personal data). */
export interface IngestedInboxFile {
  file_name: string;
  sha256: string;
  /** `applied` row by row, or `refused` whole (`error` says why; nothing of it was applied). */
  status: 'applied' | 'refused';
  error: string | null;
  /** Ingested before (same insurer, name and content): the recorded outcome, nothing sent again. */
  repeat: boolean;
  /** Where the file went: `processed/<name>` or `refused/<name>` in the inbox; null if not moved. */
  moved_to: string | null;
  /** The acknowledgement's name in the insurer's outbox. */
  acknowledgement: string;
  counts: ResultCounts;
  rows: ResponseRowOutcome[];
  /** A roster or CD statement file (`ROSTER_<policy number>_…`, `CDSTATEMENT_…`): its reconciliation, if it named a policy. */
  reconciliation_id?: string;
}

interface FileInsurer {
  code: string;
  insurerId: string;
  settings: FileAdapterSettings;
}

/** The `file` insurer of a code (one platform row, D12): one inbox answers for every client it serves. */
async function fileInsurer(system: SystemScope, code: string): Promise<FileInsurer> {
  const row = await insurerOfCode(system, code);
  if (!row) throw new IngestError(`no insurer with code ${code}`);
  if (row.adapter !== 'file') {
    throw new IngestError(`insurer ${code} uses the ${row.adapter} adapter, not file: it has no inbox`);
  }
  const config = storedAdapterConfig(code, 'file', row.adapterSettings);
  return { code, insurerId: row.insurerId, settings: config.adapterSettings as FileAdapterSettings };
}

/**
 * Sends each reference's decision through the decision Update, through the same use case as
 * `POST /v1/insurer/decisions` (so an insurer reaches only endorsements routed to it, across clients):
 * a row its insurer does not hold is an unknown reference, another insurer's endorsement included.
 * The rows of one reference are one decision (domain/insurer-exchange/response-people.ts): persons are
 * matched to dependent ids here, so the workflow receives ids and UHIDs only.
 */
async function decideRows(
  deps: IngestDeps,
  ctx: { insurer: FileInsurer; template: FileTemplate },
  fileName: string,
  rows: readonly ResponseRow[],
): Promise<ResponseRowOutcome[]> {
  const dependents = await coveredDependents(deps, ctx.insurer, rows);
  const plan = planResponseRows(ctx.template, rows, (id) => dependents.get(id) ?? []);
  const items = plan.sent.map((s) => ({
    endorsementId: s.row.reference,
    decision: { ...s.decision, source: `response file ${fileName}, row ${s.row.rowNumber}` },
  }));
  const answers = new Map<ResponseRow, DecisionAnswer>();
  const results = await submitInsurerDecisions(deps, InsurerScope.of(deps.em, ctx.insurer.insurerId), items);
  results.forEach((a, i) => {
    if (a.result !== 'refused' || a.detail !== 'not found') answers.set(plan.sent[i]!.row, a);
  });
  return rows.map((r) =>
    personOutcome(rowOutcome(r, answers.get(plan.leadOf.get(r) ?? r) ?? null), plan.problems.get(r) ?? null),
  );
}

/** The covered dependents of the endorsements the rows name, by endorsement id. */
async function coveredDependents(
  deps: IngestDeps,
  insurer: FileInsurer,
  rows: readonly ResponseRow[],
): Promise<Map<string, CandidateDependent[]>> {
  const ids = [...new Set(rows.filter((r) => 'person' in r).map((r) => r.reference))].filter((id) =>
    looksLikeId('endorsement', id),
  );
  const byEndorsement = new Map<string, CandidateDependent[]>();
  for (const d of await dependentsOfRoutedEndorsements(InsurerScope.of(deps.em, insurer.insurerId), ids)) {
    if (!coveredRelationships(d.coverage_type).includes(d.relationship)) continue;
    const list = byEndorsement.get(d.endorsement_id) ?? [];
    list.push(d);
    byEndorsement.set(d.endorsement_id, list);
  }
  return byEndorsement;
}

async function parseFile(layout: ResponseLayout, name: string, content: Buffer): Promise<ParsedResponseFile> {
  try {
    return parseResponseTable(layout, await readResponseTable(name, content));
  } catch (err) {
    if (err instanceof NotASpreadsheetError) return { ok: false, error: err.message };
    throw err;
  }
}

/**
 * One response file, recorded before anything is moved. Idempotency: the record's key is (insurer
 * code, file name, sha256), so a file seen before answers its recorded outcome and sends nothing.
 * A file refused whole is recorded with its error and no decision is sent: never half-applied. A
 * crash between rows leaves no record; the next run sends every row again and the workflow's
 * Update answers the rows already decided as duplicate, so nothing is applied twice (the recorded
 * outcome then says duplicate for them). A crash after the record re-acknowledges and moves the
 * file on the next run (the acknowledgement is rewritten whole under the same name). Two ingests
 * racing on one file: the Update's validator serialises each endorsement, the first record wins.
 */
async function ingestOne(
  deps: IngestDeps,
  ctx: { insurer: FileInsurer; template: FileTemplate; transport: InsurerExchange },
  file: { name: string; content: Buffer; folder: InboxFolder },
): Promise<IngestedInboxFile> {
  const system = SystemScope.of(deps.em);
  const key = {
    insurerCode: ctx.insurer.code,
    fileName: file.name,
    sha256: createHash('sha256').update(file.content).digest('hex'),
  };
  const seen = await findResponseFile(system, key);
  let record: RecordedResponseFile;
  if (seen) record = seen;
  else {
    const parsed = await parseFile(ctx.template.response, file.name, file.content);
    record = parsed.ok
      ? await recordResponseFile(system, {
          ...key,
          status: 'applied',
          error: null,
          rows: await decideRows(deps, ctx, file.name, parsed.rows),
        })
      : await recordResponseFile(system, { ...key, status: 'refused', error: parsed.error, rows: [] });
  }
  const acknowledgement = acknowledgementName(file.name);
  await ctx.transport.deliver(acknowledgement, acknowledgementCsv(acknowledgementTable(record)));
  // A refused file moves aside too, so a poll does not read it again; the insurer sends a corrected one.
  const to = record.status === 'refused' ? 'refused' : 'processed';
  const moved = file.folder === 'inbox' ? await moveAside(ctx.transport, file.name, to) : null;
  const counts = countResults(record.rows);
  deps.logger?.info(
    {
      insurerCode: key.insurerCode,
      responseFileId: record.id,
      status: record.status,
      repeat: !!seen,
      ...counts,
    },
    'insurer response file ingested',
  );
  return {
    file_name: file.name,
    sha256: key.sha256,
    status: record.status,
    error: record.error,
    repeat: !!seen,
    moved_to: moved,
    acknowledgement,
    counts,
    rows: record.rows,
  };
}

/** The insurer's policy a roster's or CD statement's file name names (as our file names spell policy numbers), or why none. */
async function namedPolicy(deps: IngestDeps, code: string, named: string): Promise<ExchangePolicy | string> {
  const policies = (await listExchangePoliciesOfInsurerCode(SystemScope.of(deps.em), code)).filter(
    (p) => fileNamePart(p.policyNumber).toLowerCase() === named.toLowerCase(),
  );
  if (policies.length === 1) return policies[0]!;
  return policies.length === 0
    ? `no policy of insurer ${code} has the number the file name gives`
    : `several clients' policies of insurer ${code} have the number the file name gives`;
}

type InboxFile = { name: string; content: Buffer; folder: InboxFolder };
type Reconciled = { reconciliationId: string; repeat: boolean; error: string | null };

/** What a reconciliation file starts: a roster's workflow, or a CD statement's comparison (recorded at once). */
const RECONCILIATION_FILES = {
  roster: {
    policy: rosterFilePolicy,
    received: 'roster received for reconciliation',
    reconcile: async (deps: IngestDeps, policy: ExchangePolicy, file: InboxFile): Promise<Reconciled> => {
      const r = await reconcileRoster(deps, policy, {
        source: 'file',
        fileName: file.name,
        open: () => Readable.from([file.content]),
      });
      return { reconciliationId: r.reconciliation.id, repeat: r.repeat, error: r.reconciliation.error };
    },
  },
  cd_statement: {
    policy: statementFilePolicy,
    received: 'CD statement reconciled',
    // Top-ups the statement shows stay the operator's to confirm (`insurer cd-statement --post-top-ups`).
    reconcile: async (deps: IngestDeps, policy: ExchangePolicy, file: InboxFile): Promise<Reconciled> => {
      const r = await reconcileCdStatement(
        deps.em,
        policy,
        { source: 'file', fileName: file.name, content: file.content },
        { postTopUps: false },
      );
      await deps.deliver?.(r.deliveries);
      return { reconciliationId: r.reconciliation_id, repeat: r.repeat, error: r.error };
    },
  },
} as const;

type ReconciliationFileKind = keyof typeof RECONCILIATION_FILES;

const reconciliationFileKind = (name: string): ReconciliationFileKind | null =>
  rosterFilePolicy(name) !== null ? 'roster' : statementFilePolicy(name) !== null ? 'cd_statement' : null;

/**
 * A roster file (`ROSTER_<policy number>_<anything>.csv|xlsx`) starts that policy's reconciliation
 * (usecases/reconciliation/roster.ts); a CD statement (`CDSTATEMENT_<policy number>_…`) is compared
 * with the policy's ledger and recorded (usecases/reconciliation/cd-statement.ts). Either way the same file again
 * answers the recorded reconciliation; the file is acknowledged and moved aside. A name that names
 * none of this insurer's policies (another insurer's, or another client's), or a malformed file, is
 * refused whole.
 */
async function ingestReconciliationFile(
  deps: IngestDeps,
  ctx: { insurer: FileInsurer; transport: InsurerExchange },
  file: InboxFile,
  kind: ReconciliationFileKind,
): Promise<IngestedInboxFile> {
  const handler = RECONCILIATION_FILES[kind];
  const policy = await namedPolicy(deps, ctx.insurer.code, handler.policy(file.name)!);
  const outcome: Reconciled =
    typeof policy === 'string'
      ? { reconciliationId: '', repeat: false, error: policy }
      : await handler.reconcile(deps, policy, file);
  const acknowledgement = acknowledgementName(file.name);
  const id = outcome.reconciliationId;
  const ack =
    outcome.error === null
      ? [
          ['row', 'reference', 'result', 'detail'],
          ['', id, 'accepted', handler.received],
        ]
      : acknowledgementTable({ error: outcome.error, rows: [] });
  await ctx.transport.deliver(acknowledgement, acknowledgementCsv(ack));
  const to = outcome.error === null ? 'processed' : 'refused';
  const moved = file.folder === 'inbox' ? await moveAside(ctx.transport, file.name, to) : null;
  deps.logger?.info(
    { insurerCode: ctx.insurer.code, kind, reconciliationId: id || null, status: to, repeat: outcome.repeat },
    'insurer reconciliation file ingested',
  );
  return {
    file_name: file.name,
    sha256: createHash('sha256').update(file.content).digest('hex'),
    status: outcome.error === null ? 'applied' : 'refused',
    error: outcome.error,
    repeat: outcome.repeat,
    moved_to: moved,
    acknowledgement,
    counts: countResults([]),
    rows: [],
    ...(id ? { reconciliation_id: id } : {}),
  };
}

/**
 * Moves a read file aside; null when it is already gone from the inbox (an ingest running at the
 * same time, e.g. the Schedule's poll and the command, moved it first: its record is the same).
 */
async function moveAside(
  transport: InsurerExchange,
  name: string,
  to: 'processed' | 'refused',
): Promise<string | null> {
  try {
    return `${to}/${await transport.moveInboxFile(name, to)}`;
  } catch (err) {
    if ((await transport.readInboxFile('inbox', name)) === null) return null;
    throw err;
  }
}

/** A named file: in the inbox, else already moved aside (its recorded outcome is answered). */
async function namedFile(
  transport: InsurerExchange,
  code: string,
  name: string,
): Promise<{ name: string; content: Buffer; folder: InboxFolder }> {
  for (const folder of ['inbox', 'processed', 'refused'] as const) {
    const content = await transport.readInboxFile(folder, name);
    if (content) return { name, content, folder };
  }
  throw new IngestError(`no file ${name} in the inbox of insurer ${code} (${transport.inbox})`);
}

/**
 * D14: reads a file insurer's inbox (every file in it, or one named file), file by file. A roster or
 * CD statement starts its reconciliation; any other file is a response file whose rows are applied as
 * decisions for the endorsements their references name: each is
 * parsed whole first, its outcome recorded row by row, acknowledged in the insurer's outbox
 * (`<name>.ack.csv`: row, reference, result, detail) and moved to `inbox/processed/` (or
 * `inbox/refused/`). `minAgeMs` leaves alone files changed more recently (an upload in progress).
 */
export async function ingestInboxFiles(
  deps: IngestDeps,
  q: { insurerCode: string; fileName?: string | undefined; minAgeMs?: number; now?: Date },
): Promise<IngestedInboxFile[]> {
  const insurer = await fileInsurer(SystemScope.of(deps.em), q.insurerCode);
  const transport = await transportFor(insurer.settings, {
    dataDir: deps.dataDir,
    insurerCode: insurer.code,
  });
  const ctx = { insurer, template: fileTemplate(insurer.settings.template), transport };
  // A roster or CD statement file starts a reconciliation; every other file is a response file.
  const one = (file: InboxFile) => {
    const kind = reconciliationFileKind(file.name);
    return kind === null ? ingestOne(deps, ctx, file) : ingestReconciliationFile(deps, ctx, file, kind);
  };
  if (q.fileName !== undefined) {
    return [await one(await namedFile(transport, insurer.code, q.fileName))];
  }
  const settled = (q.now ?? new Date()).getTime() - (q.minAgeMs ?? 0);
  const waiting = (await transport.listInbox()).filter((f) => f.modifiedAt.getTime() <= settled);
  const ingested: IngestedInboxFile[] = [];
  for (const { name } of waiting) {
    const content = await transport.readInboxFile('inbox', name);
    if (content) ingested.push(await one({ name, content, folder: 'inbox' }));
  }
  return ingested;
}
