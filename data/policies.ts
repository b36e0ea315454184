import type { PolicyStatus, CoverageType, PolicyType } from '../domain/enums.js';
import type { Slab } from '../domain/premium.js';
import {
  contains,
  readPage,
  type CursorCodec,
  type KeysetQuery,
  type Page,
  type PageRequest,
} from './paging.js';
import { REFERENCE_AND_CLIENT_JOINS } from './reference.js';
import type { TenantScope } from './scope.js';

/** Columns of the list view (spec 2.2, first group), read with the reference joins; `pol` is the policy. */
const POLICY_LIST_COLUMNS = `pol.id, pol.client_id, pol.policy_number, pol.insurer_id, pol.product_id, pol.tpa_id,
  pol.net_premium, pol.gross_premium, pol.coverage_type, pol.type, pol.status, pol.start_date, pol.end_date,
  pol.slabs, i.name as insurer_name, i.logo_url as insurer_logo, pr.name as product_name, t.name as tpa_name,
  c.name as client_name`;

/** Detail-only columns (spec 2.2, second group); the insurer's lists stand in for a policy without its own. */
const POLICY_DETAIL_COLUMNS = `${POLICY_LIST_COLUMNS}, pol.inclusions, pol.exclusions, pol.terms_conditions,
  pol.policy_document_url, coalesce(pol.network_hospital_url, i.network_hospital_url, '') as network_hospital_url,
  coalesce(pol.daycare_url, i.daycare_url, '') as daycare_url, pol.cd_balance, pol.cd_held,
  pol.cd_balance - pol.cd_held as cd_available_balance`;

/** A row as PostgreSQL returns it: numeric as exact strings, dates as YYYY-MM-DD. */
export interface PolicyListRow {
  id: string;
  client_id: string;
  policy_number: string;
  insurer_id: string;
  product_id: string;
  tpa_id: string;
  net_premium: string;
  gross_premium: string;
  coverage_type: CoverageType;
  type: PolicyType;
  status: PolicyStatus;
  start_date: string;
  end_date: string;
  slabs: Slab[];
  insurer_name: string;
  insurer_logo: string;
  product_name: string;
  tpa_name: string;
  client_name: string;
}

export interface PolicyDetailRow extends PolicyListRow {
  inclusions: string;
  exclusions: string;
  terms_conditions: string;
  policy_document_url: string;
  network_hospital_url: string;
  daycare_url: string;
  cd_balance: string;
  /** The CD account: held for endorsements under way, and what is left to hold (balance − held). */
  cd_held: string;
  cd_available_balance: string;
}

export interface PolicyFilter {
  status?: PolicyStatus | undefined;
  /** Case-insensitive substring of the policy number or the insurer's name. */
  search?: string | undefined;
}

/** D5: start_date descending then id, read through policies_page / policies_status_page. */
export function policiesQuery(clientId: string, f: PolicyFilter): KeysetQuery {
  const where = ['pol.client_id = ?'];
  const params: unknown[] = [clientId];
  if (f.status) {
    where.push('pol.status = ?');
    params.push(f.status);
  }
  if (f.search) {
    where.push(`(pol.policy_number ilike ? or pol.insurer_id in
      (select si.id from insurers si where si.name ilike ?))`);
    params.push(contains(f.search), contains(f.search));
  }
  return {
    scope: `policies:${clientId}`,
    from: 'policies pol',
    where: where.join(' and '),
    params,
    select: POLICY_LIST_COLUMNS,
    join: REFERENCE_AND_CLIENT_JOINS,
    key: [
      { sql: 'pol.start_date', type: 'date' },
      { sql: 'pol.id', type: 'text' },
    ],
    descending: true,
  };
}

/** One page of the client's policies (D5), one round trip (readPage). */
export const listPolicies = (
  scope: TenantScope,
  codec: CursorCodec,
  filter: PolicyFilter,
  req: PageRequest,
): Promise<Page<PolicyListRow>> =>
  readPage<PolicyListRow>(scope, codec, policiesQuery(scope.clientId, filter), req);

/** One policy of the client with its display names, one statement; null when it is not the client's. */
export async function findPolicyDetail(
  scope: TenantScope,
  policyId: string,
): Promise<PolicyDetailRow | null> {
  const [row] = await scope.sql<PolicyDetailRow>(
    `select ${POLICY_DETAIL_COLUMNS} from policies pol ${REFERENCE_AND_CLIENT_JOINS} where pol.client_id = ? and pol.id = ?`,
    [scope.clientId, policyId],
  );
  return row ?? null;
}
