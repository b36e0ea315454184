import path from 'node:path';
import v8 from 'node:v8';
import type { NativeConnection } from '@temporalio/worker';
import { Worker, type ActivityInterceptorsFactory, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities/index.js';
import { safeActivityErrors } from '../activities/safe-errors.js';
import { payloadDataConverter } from '../infra/temporal-client.js';

export const WORKFLOWS_PATH = path.resolve(import.meta.dirname, '..', 'workflows', 'index.ts');

export interface WorkerDeps extends ActivityDeps {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  /**
   * The workflow code, bundled (bundleWorkflowCode); default: this checkout's workflows/index.ts. The
   * rolling-upgrade test runs a released commit's bundle with today's activities.
   */
  workflowBundle?: { code: string } | undefined;
  /** Extra activity interceptors, after the service's own (fault injection in crash tests). */
  activityInterceptors?: ActivityInterceptorsFactory[] | undefined;
  tuning?: Partial<
    Pick<
      WorkerOptions,
      'maxConcurrentActivityTaskExecutions' | 'maxConcurrentWorkflowTaskExecutions' | 'maxCachedWorkflows'
    >
  >;
}

/**
 * Frames kept in a stack captured inside workflow code. The SDK captures and formats a stack for
 * every promise created in workflow code (kept for the stack trace query the Web UI shows); at V8's
 * default of ten frames an endorsement took about 150 ms from create to APPROVED with one in flight,
 * with six about 105 in most runs (docs/performance.md). Six still name the step a workflow waits in
 * (test/worker/create-worker.test.ts).
 */
export const WORKFLOW_STACK_FRAMES = 6;

/**
 * Limits the stacks of the workflow sandboxes made after this call. The limit is V8's flag, which
 * each new JavaScript context reads once, when it is made: the SDK's workflow threads and their
 * sandboxes are made by Worker.create, after this; this thread's own context (the activities, the
 * database's errors) was made at start-up and keeps V8's default. Safe to repeat.
 */
export function limitWorkflowStacks(): void {
  v8.setFlagsFromString(`--stack-trace-limit=${WORKFLOW_STACK_FRAMES}`);
}

/** The worker's slots and workflow cache, from the configuration (docs/operators/README.md). */
export type WorkerTuning = Required<NonNullable<WorkerDeps['tuning']>>;

/**
 * The settings an operator sizes the worker with: activities a little above the database pool
 * (they wait on it), workflow tasks at once, and the workflows kept in memory between their tasks.
 */
export function workerTuning(
  config: Pick<
    WorkerDeps['config'],
    | 'DATABASE_POOL_MAX'
    | 'WORKER_ACTIVITY_CONCURRENCY'
    | 'WORKER_WORKFLOW_CONCURRENCY'
    | 'WORKER_MAX_CACHED_WORKFLOWS'
  >,
): WorkerTuning {
  return {
    maxConcurrentActivityTaskExecutions: config.WORKER_ACTIVITY_CONCURRENCY || config.DATABASE_POOL_MAX * 2,
    maxConcurrentWorkflowTaskExecutions: config.WORKER_WORKFLOW_CONCURRENCY,
    maxCachedWorkflows: config.WORKER_MAX_CACHED_WORKFLOWS,
  };
}

/** The worker for every workflow and activity of the service, tuned for a small machine. */
export async function createWorker(deps: WorkerDeps): Promise<Worker> {
  limitWorkflowStacks();
  return Worker.create({
    connection: deps.connection,
    namespace: deps.namespace,
    taskQueue: deps.taskQueue,
    ...(deps.workflowBundle ? { workflowBundle: deps.workflowBundle } : { workflowsPath: WORKFLOWS_PATH }),
    // Payloads are encrypted on the way out and decrypted on the way in (infra/payload-codec.ts).
    dataConverter: payloadDataConverter(deps.config),
    activities: createActivities(deps),
    // Database errors leave activities without their statement text (personal data), see db/errors.ts.
    interceptors: { activity: [safeActivityErrors, ...(deps.activityInterceptors ?? [])] },
    ...workerTuning(deps.config),
    reuseV8Context: true,
    bundlerOptions: { ignoreModules: [] },
    ...deps.tuning,
  });
}
