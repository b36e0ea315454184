import type { Client } from '@temporalio/client';
import { deletePeriodicSchedules } from '../../support/schedules.js';

/**
 * A worker child creates the namespace's periodic Schedules on its own task queue (worker/main.ts).
 * On the shared test server they would outlive the test and start passes on a queue nobody polls,
 * so a test that started workers deletes them afterwards, with any pass still running.
 */
export async function endReconcilers(temporal: Client): Promise<void> {
  await deletePeriodicSchedules(temporal);
  const running = temporal.workflow.list({ query: `ExecutionStatus = 'Running'` });
  for await (const wf of running) {
    if (/PassWorkflow$/.test(wf.type)) {
      await temporal.workflow
        .getHandle(wf.workflowId)
        .terminate('test over')
        .catch(() => undefined);
    }
  }
}
