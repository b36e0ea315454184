import { z } from 'zod';
import type { PolicyDetailRow, PolicyListRow } from '../../data/policies.js';
import { COVERAGE_TYPES, POLICY_STATUSES, POLICY_TYPES } from '../../domain/enums.js';
import { dateOut, idOut, moneyOut, outcome, pagingOut } from '../schemas/responses.js';

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
    cd_held: moneyOut.meta({ description: 'Held for endorsements under review or with the insurer, INR' }),
    cd_available_balance: moneyOut.meta({
      description: 'cd_balance less cd_held: what new endorsements can hold, INR',
    }),
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
    cd_held: money(row.cd_held),
    cd_available_balance: money(row.cd_available_balance),
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
