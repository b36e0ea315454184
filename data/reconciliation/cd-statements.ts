import type { StatementCounts, StatementDifference } from '../../domain/reconciliation/cd-statement.js';
import type { RosterSource } from '../../domain/reconciliation/roster.js';
import { jsonbLiteral } from '../bulk-json.js';
import { outboxSql } from '../webhooks/outbox.js';
import { readPage, type CursorCodec, type Page, type PageRequest } from '../paging.js';
import { findReconciliationByRunKey, readReconciliation, type ReconciliationRow } from './rosters.js';
import type { TenantScope } from '../scope.js';

/** One CD statement compared with the ledger, to record: completed with its differences, or refused. */
export interface StatementOutcome {
  id: string;
  policyId: string;
  source: RosterSource;
  fileName: string;
  /** `cd-statement:sha256:<hex>`: the same statement for the same policy is recorded once. */
  runKey: string;
  status: 'completed' | 'refused';
  error: string | null;
  postings: number;
  counts: StatementCounts;
  differences: readonly StatementDifference[];
}

async function insertDifferences(tx: TenantScope, id: string, differences: readonly StatementDifference[]) {
  if (differences.length === 0) return;
  const rows = differences.map((d, i) => ({ seq: i + 1, ...d }));
  await tx.sql(
    `insert into cd_statement_differences (reconciliation_id, seq, client_id, kind, reference, statement_row, ours, theirs)
     select ?, d.seq, ?, d.kind, d.reference, d.row, d.ours, d.theirs
       from jsonb_to_recordset(${jsonbLiteral(rows)}) as d(seq integer, kind text, reference text, "row" integer,
         ours text, theirs text)`,
    [id, tx.clientId],
  );
}

/**
 * Records a CD statement's reconciliation in one transaction: the reconciliation row (kind
 * cd_statement), its differences and, when completed, `policy.reconciliation_completed` (ids and
 * counts only). Idempotency and concurrency: (policy, run key) is unique, so the same statement again
 * (or at the same time: the second insert waits for the first's commit) inserts nothing and answers
 * the recorded row (`repeat`) with no differences or webhook written twice. Returns the webhook
 * deliveries to start after the commit.
 */
export async function recordStatementReconciliation(
  scope: TenantScope,
  o: StatementOutcome,
): Promise<{ reconciliation: ReconciliationRow; repeat: boolean; deliveries: string[] }> {
  return scope.transaction(async (tx) => {
    const c = tx.clientId;
    const inserted = await tx.sql<{ id: string }>(
      `insert into roster_reconciliations (id, client_id, policy_id, kind, source, file_name, run_key, status, error,
         roster_rows, counts, completed_at)
       values (?, ?, ?, 'cd_statement', ?, ?, ?, ?, ?, ?, ?::jsonb, now())
       on conflict (policy_id, run_key) do nothing returning id`,
      [
        o.id,
        c,
        o.policyId,
        o.source,
        o.fileName,
        o.runKey,
        o.status,
        o.error,
        o.postings,
        JSON.stringify(o.counts),
      ],
    );
    if (inserted.length === 0)
      return {
        reconciliation: (await findReconciliationByRunKey(tx, o.policyId, o.runKey))!,
        repeat: true,
        deliveries: [],
      };
    await insertDifferences(tx, o.id, o.differences);
    let deliveries: string[] = [];
    if (o.status === 'completed') {
      const outbox = outboxSql('change', 'policy.reconciliation_completed');
      const [done] = await tx.sql<{ deliveries: string[] }>(
        `with change as (
           select r.client_id, r.id as entity_id, 'COMPLETED'::text as to_status,
                  jsonb_build_object('reconciliation_id', r.id, 'policy_id', r.policy_id, 'kind', r.kind,
                    'status', r.status, 'roster_rows', r.roster_rows, 'counts', r.counts) as data
             from roster_reconciliations r where r.client_id = ? and r.id = ?),
         ${outbox.sql}
         select array(select id from outbox_deliveries) as deliveries`,
        [c, o.id, ...outbox.params],
      );
      deliveries = done?.deliveries ?? [];
    }
    return { reconciliation: (await readReconciliation(tx, o.policyId, o.id))!, repeat: false, deliveries };
  });
}

export interface StatementDifferenceRow {
  seq: number;
  kind: StatementDifference['kind'];
  reference: string | null;
  statement_row: number | null;
  ours: string | null;
  theirs: string | null;
}

/** One statement reconciliation's differences in their order (D5 keyset on `seq`). */
export function statementDifferencePage(
  scope: TenantScope,
  codec: CursorCodec,
  reconciliationId: string,
  req: PageRequest,
): Promise<Page<StatementDifferenceRow>> {
  return readPage<StatementDifferenceRow>(
    scope,
    codec,
    {
      scope: `statement-differences:${scope.clientId}:${reconciliationId}`,
      from: 'cd_statement_differences d',
      where: 'd.client_id = ? and d.reconciliation_id = ?',
      params: [scope.clientId, reconciliationId],
      select: 'd.seq, d.kind, d.reference, d.statement_row, d.ours, d.theirs',
      key: [{ sql: 'd.seq', type: 'integer' }],
    },
    req,
  );
}
