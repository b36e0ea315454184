import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { clientRef } from './client.js';
import { createdAt, money, ref, text } from './columns.js';
import { EndorsementSchema } from './membership.js';
import { PolicySchema } from './policy.js';
import { tenantFilter } from './tenant.js';

/**
 * The CD account's ledger: every movement of a policy's balance and of what it holds for
 * endorsements under way. One entry per (endorsement, kind), one per top-up reference.
 */
export const CdLedgerEntrySchema = defineEntity({
  name: 'CdLedgerEntry',
  tableName: 'cd_ledger_entries',
  filters: tenantFilter,
  indexes: [
    { name: 'cd_ledger_policy', properties: ['clientId', 'policyId', 'createdAt'] },
    {
      name: 'cd_ledger_endorsement_kind',
      expression:
        'create unique index cd_ledger_endorsement_kind on cd_ledger_entries (endorsement_id, kind) ' +
        'where endorsement_id is not null',
    },
    {
      name: 'cd_ledger_reference',
      expression:
        'create unique index cd_ledger_reference on cd_ledger_entries (policy_id, reference) ' +
        'where reference is not null',
    },
    {
      name: 'cd_ledger_page',
      expression: 'create unique index cd_ledger_page on cd_ledger_entries (client_id, policy_id, seq)',
    },
  ],
  properties: {
    id: text().primary(),
    clientId: clientRef(),
    policyId: ref(PolicySchema, 'policy_id'),
    endorsementId: ref(EndorsementSchema, 'endorsement_id').nullable(),
    /** top_up, hold, release, debit, credit, adjustment (domain/cd-account/account.ts). */
    kind: text(),
    /** Signed movement of the balance: negative debits it (an addition's premium), positive credits it. */
    amount: money(),
    balanceAfter: money(),
    /** Signed movement of the sum held: a hold adds, its release or its debit takes it off. */
    heldChange: money().default(0),
    heldAfter: money().default(0),
    /** A top-up's or adjustment's reference (unique per policy). */
    reference: text().nullable(),
    /** The entry's place in its policy's ledger (1, 2, …). */
    seq: p.bigint('number'),
    reason: text(),
    createdAt: createdAt(),
  },
});
export type CdLedgerEntry = InferEntity<typeof CdLedgerEntrySchema>;
