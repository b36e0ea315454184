import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { COVERAGE_TYPES, POLICY_STATUSES, POLICY_TYPES } from '../../domain/enums.js';
import type { Slab } from '../../domain/premium.js';
import { tenantFilter } from './tenant.js';

export type { Slab };

export const PolicySchema = defineEntity({
  name: 'Policy',
  tableName: 'policies',
  filters: tenantFilter,
  properties: {
    id: p.string().primary(),
    clientId: p.string(),
    policyNumber: p.string(),
    insurerId: p.string(),
    productId: p.string(),
    tpaId: p.string(),
    netPremium: p.decimal('string').precision(14).scale(2),
    grossPremium: p.decimal('string').precision(14).scale(2),
    coverageType: p.enum([...COVERAGE_TYPES]),
    type: p.enum([...POLICY_TYPES]),
    status: p.enum([...POLICY_STATUSES]),
    startDate: p.date(),
    endDate: p.date(),
    slabs: p.json<Slab[]>(),
    defaultSumInsured: p.decimal('string').precision(14).scale(2),
    inclusions: p.text().default(''),
    exclusions: p.text().default(''),
    termsConditions: p.text().default(''),
    policyDocumentUrl: p.string().default(''),
    networkHospitalUrl: p.string().nullable(),
    daycareUrl: p.string().nullable(),
    cdBalance: p.decimal('string').precision(14).scale(2),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type Policy = InferEntity<typeof PolicySchema>;

/** Every CD balance movement; one entry per endorsement at most (unique endorsement_id). */
export const CdLedgerEntrySchema = defineEntity({
  name: 'CdLedgerEntry',
  tableName: 'cd_ledger_entries',
  filters: tenantFilter,
  properties: {
    id: p.string().primary(),
    clientId: p.string(),
    policyId: p.string(),
    endorsementId: p.string().nullable(),
    /** Signed: negative debits the balance (an addition's premium), positive credits it. */
    amount: p.decimal('string').precision(14).scale(2),
    balanceAfter: p.decimal('string').precision(14).scale(2),
    reason: p.string(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type CdLedgerEntry = InferEntity<typeof CdLedgerEntrySchema>;
