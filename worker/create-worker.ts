import path from 'node:path';
import type { NativeConnection } from '@temporalio/worker';
import { Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities/index.js';

export const WORKFLOWS_PATH = path.resolve(import.meta.dirname, '..', 'workflows', 'index.ts');

export interface WorkerDeps extends ActivityDeps {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  tuning?: Partial<
    Pick<
      WorkerOptions,
      'maxConcurrentActivityTaskExecutions' | 'maxConcurrentWorkflowTaskExecutions' | 'maxCachedWorkflows'
    >
  >;
}

/** The worker for every workflow and activity of the service, tuned for a small machine. */
export async function createWorker(deps: WorkerDeps): Promise<Worker> {
  return Worker.create({
    connection: deps.connection,
    namespace: deps.namespace,
    taskQueue: deps.taskQueue,
    workflowsPath: WORKFLOWS_PATH,
    activities: createActivities(deps),
    // Activity concurrency near the database pool size; the pool is the real limit.
    maxConcurrentActivityTaskExecutions: deps.config.DATABASE_POOL_MAX * 2,
    maxConcurrentWorkflowTaskExecutions: 40,
    maxCachedWorkflows: 500,
    reuseV8Context: true,
    bundlerOptions: { ignoreModules: [] },
    ...deps.tuning,
  });
}
