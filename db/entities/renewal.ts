import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { clientRef } from './client.js';
import { createdAt, ref, text } from './columns.js';
import { PolicySchema } from './policy.js';
import { tenantFilter } from './tenant.js';

/** D17: one policy term's renewal (migration 0028). */
export const PolicyRenewalSchema = defineEntity({
  name: 'PolicyRenewal',
  tableName: 'policy_renewals',
  filters: tenantFilter,
  uniques: [{ name: 'policy_renewals_policy_id_key', properties: ['policyId'] }],
  indexes: [
    {
      name: 'policy_renewals_open',
      expression:
        "create index policy_renewals_open on policy_renewals (status) where status in ('DRAFT', 'CONFIRMED', 'DECLINED')",
    },
  ],
  properties: {
    id: text().primary(),
    clientId: clientRef(),
    policyId: ref(PolicySchema, 'policy_id'),
    termStart: p.date(),
    termEnd: p.date(),
    /** DRAFT, CONFIRMED, DECLINED, RENEWED, EXPIRED (domain/policy-year/renewal.ts). */
    status: text(),
    /** The insurer's quote for the next term; null: the current terms carry over. */
    quote: p.json<Record<string, unknown>>().nullable(),
    /** HR (`client`), an operator, or `auto` (confirmed by itself before the end). */
    decidedBy: text().nullable(),
    decidedAt: p.datetime().nullable(),
    submittedAt: p.datetime().nullable(),
    newPolicyId: ref(PolicySchema, 'new_policy_id').nullable(),
    completedAt: p.datetime().nullable(),
    createdAt: createdAt(),
  },
});
export type PolicyRenewal = InferEntity<typeof PolicyRenewalSchema>;
