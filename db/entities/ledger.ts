import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { clientRef } from './client.js';
import { createdAt, money, ref, text } from './columns.js';
import { EndorsementSchema } from './membership.js';
import { PolicySchema } from './policy.js';
import { tenantFilter } from './tenant.js';

/** Every CD balance movement; one entry per endorsement at most (unique endorsement_id). */
export const CdLedgerEntrySchema = defineEntity({
  name: 'CdLedgerEntry',
  tableName: 'cd_ledger_entries',
  filters: tenantFilter,
  indexes: [{ name: 'cd_ledger_policy', properties: ['clientId', 'policyId', 'createdAt'] }],
  properties: {
    id: text().primary(),
    clientId: clientRef(),
    policyId: ref(PolicySchema, 'policy_id'),
    endorsementId: ref(EndorsementSchema, 'endorsement_id')
      .nullable()
      .unique('cd_ledger_entries_endorsement_id_key'),
    /** Signed: negative debits the balance (an addition's premium), positive credits it. */
    amount: money(),
    balanceAfter: money(),
    reason: text(),
    createdAt: createdAt(),
  },
});
export type CdLedgerEntry = InferEntity<typeof CdLedgerEntrySchema>;
