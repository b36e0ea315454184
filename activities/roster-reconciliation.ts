import { ApplicationFailure } from '@temporalio/common';
import { today } from '../domain/clock.js';
import {
  completeReconciliation,
  fetchAndStagePolicyRoster,
  RosterError,
} from '../usecases/reconciliation/roster.js';
import { startDeliveries } from '../usecases/webhooks/deliveries.js';
import type { ReconcileResult } from '../workflows/roster-reconciliation/contract.js';
import type { ActivityDeps } from './deps.js';

/** Roster reconciliation's activities: ids and counts in and out, the roster stays in PostgreSQL. */
export function createRosterActivities(deps: ActivityDeps, env: NodeJS.ProcessEnv = process.env) {
  return {
    /** Safe to retry: the staging is keyed by the roster's hash and the run's workflow id. */
    async fetchAndStageInsurerRoster(q: { policyId: string; runId: string }) {
      try {
        return await fetchAndStagePolicyRoster({ em: deps.orm.em, secret: (name) => env[name] }, q);
      } catch (err) {
        if (err instanceof RosterError) throw ApplicationFailure.nonRetryable(err.message, 'RosterRefused');
        throw err;
      }
    },

    /** Compares once (a completed reconciliation answers as recorded), then starts its webhook deliveries. */
    async completeRosterReconciliation(q: {
      clientId: string;
      reconciliationId: string;
    }): Promise<ReconcileResult> {
      const done = await completeReconciliation(
        deps.orm.em,
        q.clientId,
        q.reconciliationId,
        today(deps.clock),
      );
      if (!done) {
        throw ApplicationFailure.nonRetryable(
          `no reconciliation ${q.reconciliationId}`,
          'ReconciliationGone',
        );
      }
      deps.logger.info(
        {
          reconciliationId: q.reconciliationId,
          policyId: done.result.policy_id,
          status: done.result.status,
          ...done.result.counts,
        },
        'roster reconciliation completed',
      );
      await startDeliveries(deps, deps.orm.em, done.deliveries);
      return done.result;
    },
  };
}
