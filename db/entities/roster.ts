import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { clientRef } from './client.js';
import { createdAt, money, ref, text } from './columns.js';
import { PolicySchema } from './policy.js';
import { tenantFilter } from './tenant.js';

/** One roster checked against a policy's member rows (migration 0014). */
export const RosterReconciliationSchema = defineEntity({
  name: 'RosterReconciliation',
  tableName: 'roster_reconciliations',
  filters: tenantFilter,
  uniques: [{ name: 'roster_reconciliations_policy_id_run_key_key', properties: ['policyId', 'runKey'] }],
  indexes: [{ name: 'roster_reconciliations_page', properties: ['clientId', 'policyId', 'seq'] }],
  properties: {
    id: text().primary(),
    seq: p.bigint('string').autoincrement(),
    clientId: clientRef(),
    policyId: ref(PolicySchema, 'policy_id'),
    /** roster, or cd_statement (migration 0021). */
    kind: text().default('roster'),
    source: text(),
    fileName: text().nullable(),
    runKey: text(),
    status: text(),
    error: text().nullable(),
    rosterRows: p.integer().default(0),
    counts: p.json<Record<string, number>>().defaultRaw(`'{}'`),
    createdAt: createdAt(),
    completedAt: p.datetime().nullable(),
  },
});
export type RosterReconciliation = InferEntity<typeof RosterReconciliationSchema>;

/** A roster row staged for the comparison; removed when its reconciliation completes. */
export const RosterRowSchema = defineEntity({
  name: 'RosterRow',
  tableName: 'roster_rows',
  filters: tenantFilter,
  properties: {
    reconciliationId: ref(RosterReconciliationSchema, 'reconciliation_id').primary(),
    rowNumber: p.integer().primary(),
    clientId: clientRef(),
    uhid: text().nullable(),
    insurerMemberId: text().nullable(),
    employeeCode: text(),
    name: text(),
    dateOfBirth: p.date(),
    relationship: text(),
    sumInsured: money().nullable(),
    coverageStartDate: p.date().nullable(),
    coverageEndDate: p.date().nullable(),
    active: p.boolean(),
    memberId: text().nullable(),
  },
});
export type RosterRow = InferEntity<typeof RosterRowSchema>;

/** One difference a reconciliation found, numbered within it. */
export const RosterDifferenceSchema = defineEntity({
  name: 'RosterDifference',
  tableName: 'roster_differences',
  filters: tenantFilter,
  properties: {
    reconciliationId: ref(RosterReconciliationSchema, 'reconciliation_id').primary(),
    seq: p.integer().primary(),
    clientId: clientRef(),
    kind: text(),
    explains: text().nullable(),
    memberId: text().nullable(),
    employeeId: text().nullable(),
    employeeCode: text(),
    relationship: text(),
    rosterRow: p.integer().nullable(),
    field: text().nullable(),
    ours: text().nullable(),
    theirs: text().nullable(),
    endorsementId: text().nullable(),
  },
});
export type RosterDifference = InferEntity<typeof RosterDifferenceSchema>;

/** One difference between the insurer's CD statement and our ledger (migration 0021). */
export const CdStatementDifferenceSchema = defineEntity({
  name: 'CdStatementDifference',
  tableName: 'cd_statement_differences',
  filters: tenantFilter,
  properties: {
    reconciliationId: ref(RosterReconciliationSchema, 'reconciliation_id').primary(),
    seq: p.integer().primary(),
    clientId: clientRef(),
    kind: text(),
    reference: text().nullable(),
    statementRow: p.integer().nullable(),
    ours: text().nullable(),
    theirs: text().nullable(),
  },
});
export type CdStatementDifference = InferEntity<typeof CdStatementDifferenceSchema>;
