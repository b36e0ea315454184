import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { COVERAGE_TYPES, POLICY_STATUSES, POLICY_TYPES } from '../../domain/enums.js';
import type { Slab } from '../../domain/premium.js';
import { clientRef } from './client.js';
import { createdAt, money, ref, text, textEnum } from './columns.js';
import { InsurerSchema, ProductSchema, TpaSchema } from './reference.js';
import { tenantFilter } from './tenant.js';

export type { Slab };

export const PolicySchema = defineEntity({
  name: 'Policy',
  tableName: 'policies',
  filters: tenantFilter,
  uniques: [{ name: 'policies_client_id_policy_number_key', properties: ['clientId', 'policyNumber'] }],
  indexes: [
    // Keyset paging (D5): newest start date first.
    {
      name: 'policies_page',
      expression: 'create index policies_page on policies (client_id, start_date desc, id desc)',
    },
    {
      name: 'policies_renewed_from',
      expression:
        'create unique index policies_renewed_from on policies (renewed_from) where renewed_from is not null',
    },
    {
      name: 'policies_status_page',
      expression:
        'create index policies_status_page on policies (client_id, status, start_date desc, id desc)',
    },
  ],
  checks: [
    { name: 'policies_check', expression: 'end_date > start_date' },
    { name: 'policies_cd_held_check', expression: 'cd_held >= 0' },
  ],
  properties: {
    id: text().primary(),
    clientId: clientRef(),
    policyNumber: text(),
    insurerId: ref(InsurerSchema, 'insurer_id'),
    productId: ref(ProductSchema, 'product_id'),
    tpaId: ref(TpaSchema, 'tpa_id'),
    netPremium: money(),
    grossPremium: money(),
    coverageType: textEnum(COVERAGE_TYPES),
    type: textEnum(POLICY_TYPES),
    status: textEnum(POLICY_STATUSES),
    startDate: p.date(),
    endDate: p.date(),
    slabs: p.json<Slab[]>(),
    /** D16: the policy's overrides of the dependent eligibility defaults (load file's `eligibility`). */
    eligibility: p.json<Record<string, unknown>>().defaultRaw("'{}'::jsonb"),
    defaultSumInsured: money(),
    inclusions: text().default(''),
    exclusions: text().default(''),
    termsConditions: text().default(''),
    policyDocumentUrl: text().default(''),
    networkHospitalUrl: text().nullable(),
    daycareUrl: text().nullable(),
    cdBalance: money().default(0),
    /** The CD account: held for endorsements under way, the number of ledger entries, low balance. */
    cdHeld: money().default(0),
    cdEntries: p.bigint('number').default(0),
    cdLowThreshold: money().nullable(),
    cdLow: p.boolean().default(false),
    cdLowCrossings: p.integer().default(0),
    /**
     * Sums kept as of the last fold (migration 0033; the changes since are in policy_tally_changes):
     * the CD forecast's PENDING additions holding nothing yet, the member rows, the endorsements
     * waiting for the insurer.
     */
    cdPending: money().default(0),
    memberCount: p.bigint('number').default(0),
    sentCount: p.bigint('number').default(0),
    /** D17: the policy term this one renews (migration 0028); at most one renewal per term. */
    renewedFrom: p.text().nullable(),
    createdAt: createdAt(),
  },
});
export type Policy = InferEntity<typeof PolicySchema>;

/** What changed a policy's kept sums since their last fold (migration 0033's triggers append them). */
export const PolicyTallyChangeSchema = defineEntity({
  name: 'PolicyTallyChange',
  tableName: 'policy_tally_changes',
  filters: tenantFilter,
  indexes: [{ name: 'policy_tally_changes_policy', properties: ['clientId', 'policyId'] }],
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    clientId: text(),
    policyId: text(),
    cdPending: money().default(0),
    members: p.integer().default(0),
    sent: p.integer().default(0),
  },
});
export type PolicyTallyChange = InferEntity<typeof PolicyTallyChangeSchema>;
