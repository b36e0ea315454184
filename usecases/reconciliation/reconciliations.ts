import {
  statementDifferencePage,
  type StatementDifferenceRow,
} from '../../data/reconciliation/cd-statements.js';
import type { CursorCodec, Page, PageRequest } from '../../data/paging.js';
import {
  differencePage,
  readReconciliation,
  reconciliationPage,
  type DifferenceRow,
  type ReconciliationRow,
} from '../../data/reconciliation/rosters.js';
import type { TenantScope } from '../../data/scope.js';
import { looksLikeId } from '../../domain/ids.js';

/** A policy's reconciliations, newest first (D5), or null when the policy is not the client's. */
export async function reconciliationListPage(
  scope: TenantScope,
  cursors: CursorCodec,
  policyId: string,
  page: PageRequest,
): Promise<Page<ReconciliationRow> | null> {
  if (!looksLikeId('policy', policyId)) return null;
  const found = await reconciliationPage(scope, cursors, policyId, page);
  return found.policyFound ? found.page : null;
}

export type ReconciliationDetail =
  | { kind: 'roster'; reconciliation: ReconciliationRow; differences: Page<DifferenceRow> }
  | { kind: 'cd_statement'; reconciliation: ReconciliationRow; differences: Page<StatementDifferenceRow> };

/**
 * One reconciliation (a roster's or a CD statement's) with a page of its differences, or null when
 * it is not one of the client's on that policy.
 */
export async function reconciliationDetail(
  scope: TenantScope,
  cursors: CursorCodec,
  policyId: string,
  id: string,
  page: PageRequest,
): Promise<ReconciliationDetail | null> {
  if (!looksLikeId('policy', policyId) || !looksLikeId('reconciliation', id)) return null;
  const reconciliation = await readReconciliation(scope, policyId, id);
  if (!reconciliation) return null;
  if (reconciliation.kind === 'cd_statement')
    return {
      kind: 'cd_statement',
      reconciliation,
      differences: await statementDifferencePage(scope, cursors, id, page),
    };
  return { kind: 'roster', reconciliation, differences: await differencePage(scope, cursors, id, page) };
}
