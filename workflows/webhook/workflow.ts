import { proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import {
  ATTEMPT_TIMEOUT_MS,
  retryDelayMs,
  webhookTaskQueue,
  type AttemptOutcome,
  type WebhookDeliveryInput,
} from './contract.js';

/**
 * Delivers one event to one endpoint: attempts until a 2xx, the endpoint's removal, or the give-up
 * time, sleeping a jittered exponential delay between attempts. It runs on its own, so a slow or
 * dead receiver holds only this workflow (and a webhook-queue slot), never the change that
 * produced the event.
 *
 * One attempt per activity run. HTTP failures are outcomes the activity records and returns; an
 * activity failure is the database or the worker (a crash mid-attempt), retried by Temporal, which
 * may POST again: delivery is at least once and receivers dedupe by the event id.
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<AttemptOutcome> {
  const { deliverWebhook } = proxyActivities<Activities>({
    taskQueue: webhookTaskQueue(workflowInfo().taskQueue),
    startToCloseTimeout: ATTEMPT_TIMEOUT_MS + 20_000,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });
  for (let attempt = 1; ; attempt++) {
    const retryInMs = retryDelayMs(input.schedule, input.deliveryId, attempt);
    const outcome = await deliverWebhook({
      deliveryId: input.deliveryId,
      attempt,
      retryInMs,
      giveUpAfterMs: input.schedule.giveUpAfterMs,
    });
    if (outcome !== 'retry') return outcome;
    await sleep(retryInMs);
  }
}
