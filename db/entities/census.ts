import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { clientRef } from './client.js';
import { createdAt, ref, text } from './columns.js';
import { tenantFilter } from './tenant.js';

/** One committed census (migration 0017; its workflow start's mark, 0022). */
export const CensusBatchSchema = defineEntity({
  name: 'CensusBatch',
  tableName: 'census_batches',
  filters: tenantFilter,
  indexes: [
    { name: 'census_batches_client', properties: ['clientId', 'createdAt'] },
    // The reconciler's read: batches committed without a recorded workflow start.
    {
      name: 'census_batches_unstarted',
      expression:
        'create index census_batches_unstarted on census_batches (created_at) where workflow_started_at is null',
    },
  ],
  properties: {
    id: text().primary(),
    clientId: clientRef(),
    status: text(),
    rowCount: p.integer(),
    totals: p.json<Record<string, unknown>>().defaultRaw(`'{}'`),
    actorTokenId: text().nullable(),
    createdAt: createdAt(),
    completedAt: p.datetime().nullable(),
    workflowStartedAt: p.datetime().nullable(),
  },
});
export type CensusBatch = InferEntity<typeof CensusBatchSchema>;

/** One row of a committed census: its plan, and its outcome once applied. */
export const CensusBatchRowSchema = defineEntity({
  name: 'CensusBatchRow',
  tableName: 'census_batch_rows',
  filters: tenantFilter,
  properties: {
    batchId: ref(CensusBatchSchema, 'batch_id').primary(),
    rowNumber: p.integer().primary(),
    clientId: clientRef(),
    employeeCode: text(),
    person: p.json<Record<string, unknown>>().nullable(),
    plan: p.json<Record<string, unknown>>(),
    outcome: text().nullable(),
    employeeId: text().nullable(),
    endorsementId: text().nullable(),
    reason: text().nullable(),
    appliedAt: p.datetime().nullable(),
  },
});
export type CensusBatchRow = InferEntity<typeof CensusBatchRowSchema>;
