import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import { tableRows, type TableRow } from '../../adapters/file/table-reader.js';
import { findPolicyClient } from '../../data/cd-account/account.js';
import { ledgerForStatement } from '../../data/cd-account/ledger.js';
import { recordStatementReconciliation } from '../../data/reconciliation/cd-statements.js';
import { SystemScope, TenantScope } from '../../data/scope.js';
import {
  compareStatement,
  countStatementDifferences,
  MalformedStatement,
  readStatement,
  unrecordedTopUps,
  type CdStatement,
  type StatementDifference,
  type StatementDifferenceKind,
} from '../../domain/reconciliation/cd-statement.js';
import { looksLikeId, newId } from '../../domain/ids.js';
import { formatPaise, toPaise } from '../../domain/premium.js';
import { MalformedRoster } from '../../domain/reconciliation/roster-file.js';
import { STATEMENT_FILE_LIMITS, UploadLimitExceeded } from '../../domain/upload-limits.js';
import type { RosterSource } from '../../domain/reconciliation/roster.js';
import { CdTopUpRefused, topUpCd } from '../cd-account/account.js';

export interface StatementResult {
  /** The recorded reconciliation (GET /v1/policy/{policy_id}/reconciliations/{id}). */
  reconciliation_id: string;
  /** The same statement was recorded before: nothing recorded again (top-ups still posted when asked). */
  repeat: boolean;
  policy_id: string;
  file_name: string;
  status: 'completed' | 'refused';
  error: string | null;
  from: string | null;
  to: string | null;
  counts: Record<StatementDifferenceKind, number>;
  /** References and amounts only: a statement carries no personal data. */
  differences: StatementDifference[];
  /** The statement's unrecorded top-ups posted now (only with postTopUps), oldest row first. */
  top_ups_posted: { reference: string; amount: string; duplicate: boolean }[];
  /** Endorsements those top-ups funded (their workflows are woken by the caller). */
  funded: string[];
  /** Webhook deliveries of `policy.reconciliation_completed`, for the caller to start (else the sweeper does). */
  deliveries: string[];
}

async function statementRows(fileName: string, content: Buffer): Promise<TableRow[]> {
  const rows: TableRow[] = [];
  // Bounded by STATEMENT_FILE_LIMITS as it is read (blank rows counted, then left out).
  for await (const row of tableRows(fileName, content, STATEMENT_FILE_LIMITS)) rows.push(row);
  return rows;
}

/** A statement read and compared with the policy's ledger over its period, or refused whole. */
async function compareWithLedger(
  tenant: TenantScope,
  policyId: string,
  fileName: string,
  content: Buffer,
): Promise<{ statement: CdStatement; differences: StatementDifference[] } | { error: string }> {
  let statement;
  try {
    statement = readStatement(await statementRows(fileName, content));
  } catch (err) {
    if (!(
      err instanceof MalformedStatement ||
      err instanceof MalformedRoster ||
      err instanceof UploadLimitExceeded
    ))
      throw err;
    return { error: err.message };
  }
  const side = await ledgerForStatement(tenant, policyId, statement);
  const differences = compareStatement(statement, {
    opening: toPaise(side.opening),
    closing: toPaise(side.closing),
    postings: side.postings.map((p) => ({ reference: p.reference, amount: toPaise(p.amount) })),
  });
  return { statement, differences };
}

/** The policy a statement is for (found across clients: its client owns every row written). */
export interface StatementPolicy {
  policyId: string;
  clientId: string;
}

/**
 * The insurer's CD statement compared with the policy's ledger over the statement's period and
 * recorded as a reconciliation (kind cd_statement; data/reconciliation/cd-statements.ts: the same
 * statement again records nothing twice and answers `repeat`). A malformed file is refused whole
 * (recorded with its error; nothing posted). With postTopUps (operator-confirmed, never automatic: a
 * statement line is the insurer's claim, and a refund it shows is credited by its approval), the
 * statement's positive postings we have not recorded and that name no endorsement are posted as
 * top-ups under the statement's reference: idempotent by reference (topUpCd), so posting them again
 * (a repeated statement, now confirmed) posts nothing twice.
 */
export async function reconcileCdStatement(
  em: EntityManager,
  policy: StatementPolicy,
  file: { source: RosterSource; fileName: string; content: Buffer },
  o: { postTopUps: boolean },
): Promise<StatementResult> {
  const tenant = TenantScope.of(em, policy.clientId);
  const compared = await compareWithLedger(tenant, policy.policyId, file.fileName, file.content);
  const differences = 'error' in compared ? [] : compared.differences;
  const counts = countStatementDifferences(differences);
  const recorded = await recordStatementReconciliation(tenant, {
    id: newId('reconciliation'),
    policyId: policy.policyId,
    source: file.source,
    fileName: file.fileName,
    runKey: `cd-statement:sha256:${createHash('sha256').update(file.content).digest('hex')}`,
    status: 'error' in compared ? 'refused' : 'completed',
    error: 'error' in compared ? compared.error : null,
    postings: 'error' in compared ? 0 : compared.statement.postings.length,
    counts,
    differences,
  });
  const result: StatementResult = {
    reconciliation_id: recorded.reconciliation.id,
    repeat: recorded.repeat,
    policy_id: policy.policyId,
    file_name: file.fileName,
    status: 'error' in compared ? 'refused' : 'completed',
    error: 'error' in compared ? compared.error : null,
    from: 'error' in compared ? null : compared.statement.from,
    to: 'error' in compared ? null : compared.statement.to,
    counts,
    differences,
    top_ups_posted: [],
    funded: [],
    deliveries: recorded.deliveries,
  };
  if (!o.postTopUps || 'error' in compared) return result;
  const system = SystemScope.of(em);
  for (const p of unrecordedTopUps(compared.statement, differences, (r) => looksLikeId('endorsement', r))) {
    const posted = await topUpCd(system, policy.policyId, p.amount, p.reference);
    result.top_ups_posted.push({
      reference: p.reference,
      amount: formatPaise(p.amount),
      duplicate: posted.duplicate,
    });
    result.funded.push(...posted.funded);
  }
  return result;
}

/** `insurer cd-statement POLICY_ID FILE`: reconcileCdStatement for a policy found across clients. */
export async function reconcileCdStatementFile(
  em: EntityManager,
  policyId: string,
  file: string,
  o: { postTopUps: boolean },
): Promise<StatementResult> {
  const clientId = await findPolicyClient(SystemScope.of(em), policyId);
  if (!clientId) throw new CdTopUpRefused(`no policy ${policyId}`);
  return reconcileCdStatement(
    em,
    { policyId, clientId },
    { source: 'command', fileName: path.basename(file), content: await readFile(file) },
    o,
  );
}
