import { createReadStream } from 'node:fs';
import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import { rosterTableRows, type RosterTableRow } from '../adapters/file/roster-reader.js';
import { findPolicyClient } from '../data/cd-account.js';
import { ledgerForStatement } from '../data/cd-ledger.js';
import { SystemScope, TenantScope } from '../data/scope.js';
import {
  compareStatement,
  MalformedStatement,
  readStatement,
  STATEMENT_DIFFERENCE_KINDS,
  unrecordedTopUps,
  type StatementDifference,
  type StatementDifferenceKind,
} from '../domain/cd-statement.js';
import { looksLikeId } from '../domain/ids.js';
import { formatPaise, toPaise } from '../domain/premium.js';
import { MalformedRoster } from '../domain/roster-file.js';
import { CdTopUpRefused, topUpCd } from './cd-account.js';

export interface StatementResult {
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
}

async function statementRows(file: string): Promise<RosterTableRow[]> {
  const rows: RosterTableRow[] = [];
  // Bounded: readStatement refuses more than MAX_STATEMENT_ROWS, and the file size is the caller's.
  for await (const row of rosterTableRows(file, createReadStream(file)))
    if (row.cells.some((c) => c.trim() !== '')) rows.push(row);
  return rows;
}

/**
 * `insurer cd-statement POLICY_ID FILE`: the insurer's CD statement compared with the policy's ledger
 * over the statement's period. A malformed file is refused whole (nothing posted). With postTopUps
 * (operator-confirmed, never automatic: a statement line is the insurer's claim, and a refund it
 * shows is credited by its approval), the statement's positive postings we have not recorded and
 * that name no endorsement are posted as top-ups under the statement's reference: idempotent by
 * reference (topUpCd), so the same statement again posts nothing twice.
 */
export async function reconcileCdStatementFile(
  em: EntityManager,
  policyId: string,
  file: string,
  o: { postTopUps: boolean },
): Promise<StatementResult> {
  const system = SystemScope.of(em);
  const clientId = await findPolicyClient(system, policyId);
  if (!clientId) throw new CdTopUpRefused(`no policy ${policyId}`);
  const counts = Object.fromEntries(
    STATEMENT_DIFFERENCE_KINDS.map((k) => [k, 0]),
  ) as StatementResult['counts'];
  const base = {
    policy_id: policyId,
    file_name: path.basename(file),
    counts,
    top_ups_posted: [],
    funded: [],
  };
  let statement;
  try {
    statement = readStatement(await statementRows(file));
  } catch (err) {
    if (!(err instanceof MalformedStatement || err instanceof MalformedRoster)) throw err;
    return { ...base, status: 'refused', error: err.message, from: null, to: null, differences: [] };
  }
  const side = await ledgerForStatement(TenantScope.of(em, clientId), policyId, statement);
  const differences = compareStatement(statement, {
    opening: toPaise(side.opening),
    closing: toPaise(side.closing),
    postings: side.postings.map((p) => ({ reference: p.reference, amount: toPaise(p.amount) })),
  });
  for (const d of differences) counts[d.kind]++;
  const result: StatementResult = {
    ...base,
    status: 'completed',
    error: null,
    from: statement.from,
    to: statement.to,
    differences,
    top_ups_posted: [],
    funded: [],
  };
  if (!o.postTopUps) return result;
  for (const p of unrecordedTopUps(statement, differences, (r) => looksLikeId('endorsement', r))) {
    const posted = await topUpCd(system, policyId, p.amount, p.reference);
    result.top_ups_posted.push({
      reference: p.reference,
      amount: formatPaise(p.amount),
      duplicate: posted.duplicate,
    });
    result.funded.push(...posted.funded);
  }
  return result;
}
