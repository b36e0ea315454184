import type { CursorCodec, Page, PageRequest } from '../data/paging.js';
import {
  differencePage,
  readReconciliation,
  reconciliationPage,
  type DifferenceRow,
  type ReconciliationRow,
} from '../data/roster-reconciliations.js';
import type { TenantScope } from '../data/scope.js';
import { looksLikeId } from '../domain/ids.js';

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

/** One reconciliation with a page of its differences, or null when it is not one of the client's on that policy. */
export async function reconciliationDetail(
  scope: TenantScope,
  cursors: CursorCodec,
  policyId: string,
  id: string,
  page: PageRequest,
): Promise<{ reconciliation: ReconciliationRow; differences: Page<DifferenceRow> } | null> {
  if (!looksLikeId('policy', policyId) || !looksLikeId('reconciliation', id)) return null;
  const reconciliation = await readReconciliation(scope, policyId, id);
  if (!reconciliation) return null;
  return { reconciliation, differences: await differencePage(scope, cursors, id, page) };
}
