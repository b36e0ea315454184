import type { Client } from '@temporalio/client';

/**
 * A worker child starts the namespace's reconciler workflows on its own task queue (worker/main.ts).
 * On the shared test server they would outlive the test and hold the namespace-wide ids, so a test
 * that started workers ends them afterwards.
 */
export async function endReconcilers(temporal: Client): Promise<void> {
  const running = temporal.workflow.list({ query: `ExecutionStatus = 'Running'` });
  for await (const wf of running) {
    if (/reconciler/i.test(wf.type)) {
      await temporal.workflow
        .getHandle(wf.workflowId)
        .terminate('test over')
        .catch(() => undefined);
    }
  }
}
