import { listPolicyMembers, type MemberFilter, type MemberRow } from '../data/members.js';
import type { CursorCodec, Page, PageRequest } from '../data/paging.js';
import {
  findPolicyDetail,
  listPolicies,
  type PolicyDetailRow,
  type PolicyFilter,
  type PolicyListRow,
} from '../data/policies.js';
import type { TenantScope } from '../data/scope.js';
import { listCdLedger, type CdLedgerRow } from '../data/cd-account/ledger.js';
import { looksLikeId } from '../domain/ids.js';

/** Spec 4.2: one page of the client's policies. */
export const policyPage = (
  scope: TenantScope,
  cursors: CursorCodec,
  filter: PolicyFilter,
  page: PageRequest,
): Promise<Page<PolicyListRow>> => listPolicies(scope, cursors, filter, page);

/** Spec 4.3: the policy, or null when it is not one of the client's (an id of another shape never is). */
export const policyDetail = async (scope: TenantScope, policyId: string): Promise<PolicyDetailRow | null> =>
  looksLikeId('policy', policyId) ? findPolicyDetail(scope, policyId) : null;

/** Spec 4.4: one page of the policy's members, or null when the policy is not the client's. */
export async function memberPage(
  scope: TenantScope,
  cursors: CursorCodec,
  policyId: string,
  filter: MemberFilter,
  page: PageRequest,
): Promise<Page<MemberRow> | null> {
  if (!looksLikeId('policy', policyId)) return null;
  const found = await listPolicyMembers(scope, cursors, policyId, filter, page);
  return found.policyFound ? found.page : null;
}

/** The policy's CD ledger in posting order, or null when the policy is not the client's. */
export async function cdLedgerPage(
  scope: TenantScope,
  cursors: CursorCodec,
  policyId: string,
  page: PageRequest,
): Promise<Page<CdLedgerRow> | null> {
  if (!looksLikeId('policy', policyId)) return null;
  const found = await listCdLedger(scope, cursors, policyId, page);
  return found.policyFound ? found.page : null;
}
