import { Context } from '@temporalio/activity';
import { attemptDelivery, startUnstartedDeliveries } from '../usecases/webhooks/deliveries.js';
import type { AttemptInput, AttemptOutcome } from '../workflows/webhook/contract.js';
import type { ActivityDeps } from './deps.js';

/**
 * Webhook delivery activities, thin over usecases/webhooks/deliveries.ts. An attempt is recorded under
 * (delivery, attempt number), so a Temporal retry of the same attempt overwrites its record instead
 * of adding one, and the delivery row only moves while pending (a late duplicate cannot undo
 * `delivered`).
 */
export function createWebhookActivities(deps: ActivityDeps) {
  return {
    /**
     * One attempt: POST the signed event; 2xx is delivered; otherwise `retry`, or `failed` when the
     * next attempt would fall beyond the give-up time. A removed endpoint cancels its deliveries.
     */
    async deliverWebhook(input: AttemptInput): Promise<AttemptOutcome> {
      return attemptDelivery(
        deps.orm.em,
        { config: deps.config, now: () => deps.clock.now(), signal: Context.current().cancellationSignal },
        input,
      );
    },

    /** The sweeper's pass: starts deliveries still without a workflow after the grace period. */
    async startPendingDeliveries(input: { graceMs: number }): Promise<{ started: number }> {
      const started = await startUnstartedDeliveries(deps, deps.orm.em, input.graceMs);
      if (started > 0) deps.logger.info({ started }, 'started pending webhook deliveries');
      return { started };
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
