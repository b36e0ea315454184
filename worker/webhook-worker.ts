import { Worker, type NativeConnection } from '@temporalio/worker';
import { createWebhookActivities } from '../activities/webhook.js';
import type { ActivityDeps } from '../activities/index.js';
import { payloadDataConverter } from '../infra/temporal-client.js';
import { webhookTaskQueue, type AttemptInput } from '../workflows/webhook/contract.js';

/**
 * Concurrent POSTs per worker process. They wait on the network, not on CPU or the database (an
 * attempt holds a connection only for its two short statements), so well above the main worker's.
 */
const WEBHOOK_ACTIVITY_SLOTS = 100;

/**
 * The activity-only worker for webhook POSTs, beside the main worker in the same process: its own
 * task queue and slots, so slow receivers cannot starve the endorsement and grant activities.
 */
export async function createWebhookWorker(
  deps: ActivityDeps & { connection: NativeConnection; namespace: string; taskQueue: string },
): Promise<Worker> {
  const webhooks = createWebhookActivities(deps);
  return Worker.create({
    connection: deps.connection,
    namespace: deps.namespace,
    taskQueue: webhookTaskQueue(deps.taskQueue),
    dataConverter: payloadDataConverter(deps.config),
    activities: { deliverWebhook: (input: AttemptInput) => webhooks.deliverWebhook(input) },
    maxConcurrentActivityTaskExecutions: WEBHOOK_ACTIVITY_SLOTS,
  });
}
