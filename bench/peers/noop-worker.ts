import path from 'node:path';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { Activities } from '../../activities/index.js';
import { loadConfig } from '../../config/index.js';
import { createLogger } from '../../infra/logger.js';
import { payloadDataConverter, temporalConnectionOptions } from '../../infra/temporal-client.js';
import { limitWorkflowStacks, WORKFLOWS_PATH } from '../../worker/create-worker.js';
import { installWorkerRuntime } from '../../worker/telemetry.js';
import { BENCH_SETTINGS, FILE_PEER_PREFIX } from '../stack.js';

const TRIVIAL_WORKFLOWS_PATH = path.resolve(import.meta.dirname, 'trivial-workflow.ts');

/**
 * The peer of end-to-end throughput: the same endorsement workflow code on the same server, its
 * activities replaced by no-ops, so the difference is what the real activities (database) cost.
 */
type EndorsementSteps =
  | 'reviewEndorsement'
  | 'holdEndorsementFunds'
  | 'routeAfterReview'
  | 'reviewHoldAndRoute'
  | 'markSentToInsurer'
  | 'rejectEndorsement'
  | 'cancelEndorsement'
  | 'submitToInsurer'
  | 'withdrawFromInsurer'
  | 'applyApproval'
  | 'readEndorsementInsurer'
  | 'recordSlaBreach';
const noop = async (): Promise<void> => undefined;
/**
 * An insurer called per endorsement (not a file insurer's cut-off), as the bench's simulated one;
 * the census bench's bare starts (ids FILE_PEER_PREFIX…) wait for a cut-off as a file insurer's do.
 */
const route = (id: string) =>
  id.startsWith(FILE_PEER_PREFIX)
    ? { adapter: 'file' as const, insurerCode: 'NOOP', queued: true }
    : { adapter: 'simulated' as const, insurerCode: 'NOOP', queued: false };
const activities: Pick<Activities, EndorsementSteps> = {
  reviewEndorsement: noop,
  // The CD account always covers it, as the bench's policies' balances do.
  holdEndorsementFunds: async () => ({ held: true }),
  routeAfterReview: async (id: string) => route(id),
  reviewHoldAndRoute: async (id: string) => ({ held: true, route: route(id) }),
  markSentToInsurer: noop,
  rejectEndorsement: noop,
  cancelEndorsement: noop,
  submitToInsurer: noop,
  withdrawFromInsurer: noop,
  applyApproval: noop,
  // The SLA watch's read: an insurer with no sla_days of its own, submitted now.
  readEndorsementInsurer: async () => ({
    insurerId: 'ins_noop',
    submittedAt: new Date().toISOString(),
    slaDays: null,
  }),
  recordSlaBreach: noop,
};

const config = loadConfig();
// The real worker's runtime: the same logger at the same level (the SDK's default logs every workflow
// line at INFO, a cost the real worker does not pay) and metrics on a port of its own.
const peerMetricsPort = Number(process.env.PEER_WORKER_METRICS_PORT ?? 0);
installWorkerRuntime({ ...config, WORKER_METRICS_PORT: peerMetricsPort }, createLogger(config.LOG_LEVEL));
const connection = await NativeConnection.connect(temporalConnectionOptions(config));
// The real worker's workflow stacks, so the peers' workflow code costs what ours does.
limitWorkflowStacks();
const worker = await Worker.create({
  connection,
  taskQueue: config.TEMPORAL_TASK_QUEUE,
  workflowsPath: WORKFLOWS_PATH,
  // The same encrypted payloads as the real worker, so the peer pays the same codec cost.
  dataConverter: payloadDataConverter(config),
  activities,
  maxConcurrentActivityTaskExecutions: BENCH_SETTINGS.workerActivityConcurrency,
  maxConcurrentWorkflowTaskExecutions: BENCH_SETTINGS.workerWorkflowConcurrency,
  maxCachedWorkflows: BENCH_SETTINGS.workerCachedWorkflows,
  reuseV8Context: BENCH_SETTINGS.reuseV8Context,
});
// The decisions peer's trivial workflows (bench/decisions.ts), on a queue of their own.
const trivial = await Worker.create({
  connection,
  taskQueue: `${config.TEMPORAL_TASK_QUEUE}-trivial`,
  workflowsPath: TRIVIAL_WORKFLOWS_PATH,
  dataConverter: payloadDataConverter(config),
  maxConcurrentWorkflowTaskExecutions: BENCH_SETTINGS.workerWorkflowConcurrency,
  maxCachedWorkflows: BENCH_SETTINGS.workerCachedWorkflows,
  reuseV8Context: BENCH_SETTINGS.reuseV8Context,
});
await Promise.all([worker.run(), trivial.run()]);
await connection.close();
