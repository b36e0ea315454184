import { Runtime, type LogLevel, type LogMetadata, type Logger as SdkLogger } from '@temporalio/worker';
import type { Logger } from '../infra/logger.js';
import type { Config } from '../config/index.js';

const LEVELS = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;

/**
 * The SDK's logs as the service's JSON lines: workflow `log` calls carry workflowId, runId and
 * workflowType, activity `log` calls also activityType and attempt, and the endorsement code adds
 * endorsementId, so a request's endorsement can be followed from the API's log into its workflow.
 */
export function sdkLogger(logger: Logger): SdkLogger {
  const at = (level: LogLevel) => (message: string, meta?: LogMetadata) => {
    // An activity's task token completes that activity through the API: a credential, not a log field.
    const { taskToken: _token, ...fields } = meta ?? {};
    logger[LEVELS[level]](fields, message);
  };
  return {
    log: (level, message, meta) => at(level)(message, meta),
    trace: at('TRACE'),
    debug: at('DEBUG'),
    info: at('INFO'),
    warn: at('WARN'),
    error: at('ERROR'),
  };
}

/**
 * Configures the worker process's Temporal runtime, once, before its first connection: the logger
 * above and, unless WORKER_METRICS_PORT is 0, the SDK's own Prometheus metrics (task slots, poll and
 * schedule-to-start latency, workflow and activity outcomes) on that port.
 */
export function installWorkerRuntime(config: Config, logger: Logger): void {
  const bindAddress = `${config.WORKER_METRICS_HOST}:${config.WORKER_METRICS_PORT}`;
  if (config.WORKER_METRICS_PORT > 0) {
    try {
      Runtime.install({
        logger: sdkLogger(logger),
        telemetryOptions: { metrics: { prometheus: { bindAddress } } },
      });
      logger.info({ bindAddress }, 'worker metrics listening');
      return;
    } catch (err) {
      // A second worker on the same host (same port): it works on, without its own metrics.
      logger.warn({ bindAddress, error: (err as Error).message }, 'worker metrics not exposed');
    }
  }
  Runtime.install({ logger: sdkLogger(logger) });
}
