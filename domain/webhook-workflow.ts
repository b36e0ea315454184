import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Config } from '../config/index.js';
import type { Logger } from '../api/logger.js';
import {
  GIVE_UP_AFTER_MS,
  WEBHOOK_DELIVERY_WORKFLOW,
  webhookWorkflowId,
  type WebhookDeliveryInput,
} from '../workflows/webhook/contract.js';

/** A start waits this long for Temporal; a delivery not started in time is the sweeper's. */
const START_DEADLINE_MS = 2_000;

export interface DeliveryStartDeps {
  temporal: Client;
  config: Config;
  logger: Logger;
}

export function deliveryInput(deliveryId: string, config: Config): WebhookDeliveryInput {
  return {
    deliveryId,
    schedule: {
      initialIntervalMs: config.WEBHOOK_RETRY_INITIAL_MS,
      maximumIntervalMs: Math.max(config.WEBHOOK_RETRY_MAX_MS, config.WEBHOOK_RETRY_INITIAL_MS),
      giveUpAfterMs: GIVE_UP_AFTER_MS,
    },
  };
}

async function startOne(deps: DeliveryStartDeps, deliveryId: string): Promise<void> {
  try {
    await deps.temporal.withDeadline(Date.now() + START_DEADLINE_MS, () =>
      deps.temporal.workflow.start(WEBHOOK_DELIVERY_WORKFLOW, {
        workflowId: webhookWorkflowId(deliveryId),
        taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
        args: [deliveryInput(deliveryId, deps.config)],
        workflowIdConflictPolicy: 'USE_EXISTING',
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      }),
    );
  } catch (err) {
    // Already running, or already finished: either way it is started, and never twice.
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/**
 * Starts the delivery workflows of these deliveries and marks them started; best effort (never
 * throws): what fails to start keeps started_at null and the sweeper starts it. Callers are the
 * activities right after the commit that wrote the deliveries, and the sweeper.
 */
export async function startDeliveries(
  deps: DeliveryStartDeps,
  em: EntityManager,
  deliveryIds: readonly string[],
): Promise<number> {
  if (deliveryIds.length === 0) return 0;
  const results = await Promise.allSettled(deliveryIds.map((id) => startOne(deps, id)));
  const started = deliveryIds.filter((_, i) => results[i]!.status === 'fulfilled');
  if (started.length < deliveryIds.length) {
    deps.logger.warn(
      { failed: deliveryIds.length - started.length },
      'webhook deliveries not started; the sweeper will start them',
    );
  }
  if (started.length === 0) return 0;
  try {
    await em
      .getConnection()
      .execute(
        'update webhook_deliveries set started_at = now() where id = any (array[?]::text[]) and started_at is null',
        [started],
      );
  } catch (err) {
    // Unmarked deliveries are started again by the sweeper, which is harmless (same workflow id).
    deps.logger.warn({ err: (err as Error).message }, 'webhook deliveries started but not marked');
  }
  return started.length;
}
