import { z } from 'zod';
import {
  COVERAGE_TYPES,
  POLICY_STATUSES,
  POLICY_TYPES,
  type CoverageType,
  type PolicyStatus,
  type PolicyType,
} from '../../domain/enums.js';
import type { Slab } from '../../domain/premium.js';
import { dateOut, idOut, moneyOut, outcome, pagingOut } from '../schemas/responses.js';

/** Columns of the list view (spec 2.2, first group), read with POLICY_JOINS; `pol` is the policy. */
export const POLICY_LIST_COLUMNS = `pol.id, pol.client_id, pol.policy_number, pol.insurer_id, pol.product_id, pol.tpa_id,
  pol.net_premium, pol.gross_premium, pol.coverage_type, pol.type, pol.status, pol.start_date, pol.end_date,
  pol.slabs, i.name as insurer_name, i.logo_url as insurer_logo, pr.name as product_name, t.name as tpa_name,
  c.name as client_name`;

/** Detail-only columns (spec 2.2, second group); the insurer's lists stand in for a policy without its own. */
export const POLICY_DETAIL_COLUMNS = `${POLICY_LIST_COLUMNS}, pol.inclusions, pol.exclusions, pol.terms_conditions,
  pol.policy_document_url, coalesce(pol.network_hospital_url, i.network_hospital_url, '') as network_hospital_url,
  coalesce(pol.daycare_url, i.daycare_url, '') as daycare_url, pol.cd_balance`;

/** Display names; every joined row belongs to the policy's own client (D1). */
export const POLICY_JOINS = `join insurers i on i.id = pol.insurer_id and i.client_id = pol.client_id
  join products pr on pr.id = pol.product_id and pr.client_id = pol.client_id
  join tpas t on t.id = pol.tpa_id and t.client_id = pol.client_id
  join clients c on c.id = pol.client_id`;

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
}

/** Money leaves as a JSON number (spec conventions); numeric(14,2) fits a double exactly enough to print back. */
const money = (amount: string): number => Number(amount);

/** A slab as the spec's string: whole rupees without a `.00` tail (`"300000"`), paise kept when present. */
export const slabAmount = (amount: string): string => amount.replace(/\.0+$/, '');

/** Spec 2.2, first group: the list view. */
export const policyListItemSchema = z
  .object({
    id: idOut('pol_8kq2n4x7w1'),
    client_id: z.string(),
    policy_number: z.string(),
    insurer_id: z.string(),
    product_id: z.string(),
    tpa_id: z.string(),
    net_premium: moneyOut,
    gross_premium: moneyOut,
    coverage_type: z.enum(COVERAGE_TYPES),
    type: z.enum(POLICY_TYPES),
    status: z.enum(POLICY_STATUSES),
    start_date: dateOut,
    end_date: dateOut,
    sum_insured: z
      .array(z.string().meta({ example: '300000' }))
      .meta({ description: 'Sum-insured slabs (INR)' }),
    insurer_name: z.string(),
    insurer_logo: z.string(),
    product_name: z.string(),
    tpa_name: z.string(),
    client_name: z.string(),
  })
  .meta({ id: 'PolicyListItem', description: 'A policy as List Policies shows it (spec 2.2).' });
export type PolicyListItem = z.infer<typeof policyListItemSchema>;

/** Spec 2.2, both groups: the detail view. */
export const policyDetailSchema = policyListItemSchema
  .extend({
    inclusions: z.string(),
    exclusions: z.string(),
    terms_conditions: z.string(),
    policy_document_url: z.string(),
    network_hospital_url: z.string(),
    daycare_url: z.string(),
    cd_balance: moneyOut.meta({ description: 'Current CD (credit deposit) balance, INR' }),
  })
  .meta({ id: 'Policy', description: 'A policy with its detail fields (spec 2.2).' });
export type PolicyDetail = z.infer<typeof policyDetailSchema>;

export function presentPolicyListItem(row: PolicyListRow): PolicyListItem {
  return {
    id: row.id,
    client_id: row.client_id,
    policy_number: row.policy_number,
    insurer_id: row.insurer_id,
    product_id: row.product_id,
    tpa_id: row.tpa_id,
    net_premium: money(row.net_premium),
    gross_premium: money(row.gross_premium),
    coverage_type: row.coverage_type,
    type: row.type,
    status: row.status,
    start_date: row.start_date,
    end_date: row.end_date,
    sum_insured: row.slabs.map((slab) => slabAmount(slab.sum_insured)),
    insurer_name: row.insurer_name,
    insurer_logo: row.insurer_logo,
    product_name: row.product_name,
    tpa_name: row.tpa_name,
    client_name: row.client_name,
  };
}

export function presentPolicyDetail(row: PolicyDetailRow): PolicyDetail {
  return {
    ...presentPolicyListItem(row),
    inclusions: row.inclusions,
    exclusions: row.exclusions,
    terms_conditions: row.terms_conditions,
    policy_document_url: row.policy_document_url,
    network_hospital_url: row.network_hospital_url,
    daycare_url: row.daycare_url,
    cd_balance: money(row.cd_balance),
  };
}

/** Spec 4.2. */
export const listPoliciesPayload = z
  .object({
    policies: z.array(policyListItemSchema),
    ...pagingOut,
    ...outcome('Policies fetched successfully'),
  })
  .meta({ id: 'ListPoliciesPayload' });

/** Spec 4.3. */
export const getPolicyPayload = z
  .object({ policy: policyDetailSchema, ...outcome('Policy fetched successfully') })
  .meta({ id: 'GetPolicyPayload' });
