import { Context } from '@temporalio/activity';
import { TenantScope } from '../data/scope.js';
import { today } from '../domain/clock.js';
import { applyCensusRange, completeCensus } from '../usecases/census/apply.js';
import { startDeliveries } from '../usecases/webhooks/deliveries.js';
import type { ChunkResult } from '../workflows/census-batch/contract.js';
import type { ActivityDeps } from './deps.js';

/** Heartbeats when run as an activity; nothing in direct calls (tests). */
function heartbeat(): () => void {
  try {
    const ctx = Context.current();
    return () => ctx.heartbeat();
  } catch {
    return () => undefined;
  }
}

/** Census batch activities (D16): ids and row numbers in, counts out; the census stays in PostgreSQL. */
export function createCensusActivities(deps: ActivityDeps) {
  const tenant = (clientId: string) => TenantScope.of(deps.orm.em, clientId);
  return {
    /** Applies one chunk's rows, each once (usecases/census/apply.ts): safe to retry at any point. */
    async applyCensusRows(q: {
      clientId: string;
      batchId: string;
      from: number;
      to: number;
    }): Promise<ChunkResult> {
      return applyCensusRange(deps, tenant(q.clientId), q.batchId, q, today(deps.clock), heartbeat());
    },

    /** Completes the batch once (guarded) and starts its webhook deliveries; retried while rows are pending. */
    async completeCensusBatch(q: { clientId: string; batchId: string }): Promise<void> {
      const deliveries = await completeCensus(tenant(q.clientId), q.batchId);
      if (deliveries === null) throw new Error(`census batch ${q.batchId} still has pending rows`);
      await startDeliveries(deps, deps.orm.em, deliveries);
    },
  };
}
