import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { fetchInsurerRoster } from '../../adapters/api-insurer/roster.js';
import { rosterTableRows, type RosterTableRow } from '../../adapters/file/roster-reader.js';
import {
  compareRoster,
  recordRefusedRoster,
  stageRoster,
  type ReconciliationRow,
} from '../../data/reconciliation/rosters.js';
import { readExchangePolicy, type ExchangePolicy } from '../../data/insurer-exchange/policies.js';
import { SystemScope, TenantScope } from '../../data/scope.js';
import { storedAdapterConfig } from '../../domain/insurer-exchange/adapter-settings.js';
import type { InsurerAdapterName } from '../../domain/enums.js';
import { fileTemplate } from '../../domain/insurer-exchange/file-templates/index.js';
import { newId } from '../../domain/ids.js';
import {
  MalformedRoster,
  MAX_ROSTER_ROWS,
  rosterReader,
  type RosterRow,
} from '../../domain/reconciliation/roster-file.js';
import type { DifferenceCounts, RosterSource } from '../../domain/reconciliation/roster.js';
import { ROSTER_FILE_LIMITS, UploadLimitExceeded } from '../../domain/upload-limits.js';
import {
  reconciliationWorkflowId,
  ROSTER_RECONCILIATION_WORKFLOW,
  type ReconcileInput,
  type ReconcileResult,
} from '../../workflows/roster-reconciliation/contract.js';

/** An unknown policy or a roster that names another: the operator's or insurer's input, not a fault. */
export class RosterError extends Error {}

export interface RosterDeps {
  em: EntityManager;
  temporal: Client;
  taskQueue: string;
}

/** A roster to reconcile: where it came from and how to read it (again) from the start. */
export interface RosterInput {
  source: RosterSource;
  fileName: string;
  open: () => Readable;
  /** Appended to the content hash in the run key: a scheduled fetch is one run per Schedule action. */
  runSuffix?: string;
}

/** The template an insurer's rosters are read with: a file insurer's own, an api insurer's roster setting, else generic. */
export function rosterTemplateName(policy: ExchangePolicy): string {
  const config = storedAdapterConfig(
    policy.insurerCode,
    policy.adapter as InsurerAdapterName,
    policy.adapterSettings,
  );
  if (config.adapter === 'file') return config.adapterSettings.template;
  if (config.adapter === 'api') return config.adapterSettings.roster?.template ?? 'generic';
  return 'generic';
}

/** The roster's rows read one at a time: the header row first, blank rows skipped, the size bounded. */
export async function* parseRoster(
  policy: ExchangePolicy,
  table: AsyncIterable<RosterTableRow>,
): AsyncGenerator<RosterRow> {
  const reader = rosterReader(fileTemplate(rosterTemplateName(policy)), policy.policyNumber);
  let header = false;
  let rows = 0;
  for await (const row of table) {
    if (row.cells.every((c) => c.trim() === '')) continue;
    if (!header) {
      reader.header(row.cells);
      header = true;
      continue;
    }
    if (++rows > MAX_ROSTER_ROWS)
      throw new MalformedRoster(`the roster has more than ${MAX_ROSTER_ROWS} rows`);
    yield reader.row(row.rowNumber, row.cells);
  }
  if (!header) throw new MalformedRoster('the roster is empty (no header row)');
}

/**
 * The roster's digest, read once whole; a roster larger than ROSTER_FILE_LIMITS allows is read no
 * further, and its key is the digest of what was read, marked, so the same file is refused once.
 */
async function sha256Of(open: () => Readable): Promise<{ digest: string; tooLarge: boolean }> {
  const hash = createHash('sha256');
  let bytes = 0;
  const stream = open();
  try {
    for await (const chunk of stream) {
      bytes += (chunk as Buffer).length;
      hash.update(chunk as Buffer);
      if (bytes > ROSTER_FILE_LIMITS.bytes)
        return { digest: `${hash.digest('hex')}:too-large`, tooLarge: true };
    }
  } finally {
    stream.destroy();
  }
  return { digest: hash.digest('hex'), tooLarge: false };
}

/** An insurer's roster over the API is kept on disk for one read: never more than a roster may be. */
async function* atMostRosterBytes(body: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let bytes = 0;
  for await (const chunk of body) {
    const room = ROSTER_FILE_LIMITS.bytes + 1 - bytes;
    bytes += chunk.length;
    // One byte past the bound is kept, so the read that follows refuses the roster as too large.
    if (chunk.length >= room) {
      yield chunk.subarray(0, room);
      return;
    }
    yield chunk;
  }
}

/** Starts a staged reconciliation's workflow; a second start finds the first (one workflow id per reconciliation). */
export async function startReconciliation(deps: RosterDeps, r: ReconciliationRow): Promise<void> {
  try {
    await deps.temporal.workflow.start(ROSTER_RECONCILIATION_WORKFLOW, {
      workflowId: reconciliationWorkflowId(r.id),
      taskQueue: deps.taskQueue,
      args: [{ clientId: r.client_id, reconciliationId: r.id } satisfies ReconcileInput],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/**
 * Stages one roster for a policy: hashed first (the run key), then parsed as it streams and staged
 * in one transaction. Idempotent: the same roster for the same policy answers the recorded
 * reconciliation (`repeat`), staged or refused, and reads nothing more. A malformed roster is
 * refused whole (nothing staged) and recorded with its error.
 */
export async function stagePolicyRoster(
  deps: { em: EntityManager },
  policy: ExchangePolicy,
  roster: RosterInput,
): Promise<{ reconciliation: ReconciliationRow; repeat: boolean }> {
  const digest = await sha256Of(roster.open);
  const runKey = `sha256:${digest.digest}${roster.runSuffix ? `:${roster.runSuffix}` : ''}`;
  const scope = TenantScope.of(deps.em, policy.clientId);
  const fresh = {
    id: newId('reconciliation'),
    policyId: policy.policyId,
    source: roster.source,
    fileName: roster.fileName,
    runKey,
  };
  try {
    if (digest.tooLarge) throw new UploadLimitExceeded('bytes', ROSTER_FILE_LIMITS);
    const rows = parseRoster(policy, rosterTableRows(roster.fileName, roster.open()));
    const { reconciliation, staged } = await stageRoster(scope, fresh, rows);
    return { reconciliation, repeat: !staged };
  } catch (err) {
    if (!(err instanceof MalformedRoster || err instanceof UploadLimitExceeded)) throw err;
    const reconciliation = await recordRefusedRoster(scope, fresh, err.message);
    return { reconciliation, repeat: reconciliation.id !== fresh.id };
  }
}

/** A staged roster goes on to its workflow; a refused or completed one is answered as recorded. */
export async function reconcileRoster(
  deps: RosterDeps,
  policy: ExchangePolicy,
  roster: RosterInput,
): Promise<{ reconciliation: ReconciliationRow; repeat: boolean }> {
  const staged = await stagePolicyRoster(deps, policy, roster);
  if (staged.reconciliation.status === 'staged') await startReconciliation(deps, staged.reconciliation);
  return staged;
}

/**
 * `insurer reconcile POLICY_ID FILE`: reconciles a roster file for a policy and waits for the
 * result (counts only). The policy is found across clients (an operator command); its client then
 * owns every row written.
 */
export async function reconcileRosterFile(
  deps: RosterDeps,
  policyId: string,
  file: string,
): Promise<ReconcileResult & { repeat: boolean; error: string | null; roster_rows: number }> {
  const policy = await readExchangePolicy(SystemScope.of(deps.em), policyId);
  if (!policy) throw new RosterError(`no policy ${policyId}`);
  const { reconciliation, repeat } = await reconcileRoster(deps, policy, {
    source: 'command',
    fileName: path.basename(file),
    open: () => createReadStream(file),
  });
  const done =
    reconciliation.status === 'staged'
      ? await deps.temporal.workflow
          .getHandle<(i: ReconcileInput) => Promise<ReconcileResult>>(
            reconciliationWorkflowId(reconciliation.id),
          )
          .result()
      : resultOf(reconciliation);
  return { ...done, repeat, error: reconciliation.error, roster_rows: reconciliation.roster_rows };
}

export const resultOf = (r: ReconciliationRow): ReconcileResult => ({
  reconciliation_id: r.id,
  policy_id: r.policy_id,
  status: r.status,
  // A roster's reconciliation counts a roster's kinds (a CD statement's is never run by this workflow).
  counts: r.counts as DifferenceCounts,
});

/** The comparison and its webhook; the deliveries are started by the caller after the commit. */
export async function completeReconciliation(
  em: EntityManager,
  clientId: string,
  reconciliationId: string,
  today: string,
): Promise<{ result: ReconcileResult; deliveries: string[] } | undefined> {
  const done = await compareRoster(TenantScope.of(em, clientId), reconciliationId, today);
  return done && { result: resultOf(done.reconciliation), deliveries: done.deliveries };
}

/**
 * The Schedule's fetch: an `api` insurer's roster of the policy, streamed to a temporary file (so it
 * can be hashed, then parsed, without being held in memory) and staged. `runId` (the workflow's id,
 * which carries the scheduled time) makes a retried fetch of one run find its own staging.
 */
export async function fetchAndStagePolicyRoster(
  deps: { em: EntityManager; secret: (name: string) => string | undefined },
  q: { policyId: string; runId: string },
): Promise<ReconcileInput & { clientId: string; reconciliationId: string }> {
  const policy = await readExchangePolicy(SystemScope.of(deps.em), q.policyId);
  if (!policy) throw new RosterError(`no policy ${q.policyId}`);
  const config = storedAdapterConfig(
    policy.insurerCode,
    policy.adapter as InsurerAdapterName,
    policy.adapterSettings,
  );
  if (config.adapter !== 'api' || !config.adapterSettings.roster) {
    throw new RosterError(`insurer ${policy.insurerCode} of policy ${policy.policyId} publishes no roster`);
  }
  const settings = config.adapterSettings;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'roster-'));
  const file = path.join(dir, 'roster.csv');
  try {
    const body = await fetchInsurerRoster({
      insurerCode: policy.insurerCode,
      policyNumber: policy.policyNumber,
      settings,
      secret: deps.secret(settings.signing_secret_env),
    });
    await pipeline(body, atMostRosterBytes, createWriteStream(file, { mode: 0o600 }));
    const { reconciliation } = await stagePolicyRoster(deps, policy, {
      source: 'api',
      fileName: file,
      open: () => createReadStream(file),
      runSuffix: q.runId,
    });
    return { clientId: reconciliation.client_id, reconciliationId: reconciliation.id };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
