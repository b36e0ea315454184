import {
  ActivityFailure,
  ApplicationFailure,
  type ActivityFunctionWithOptions,
  type ActivityOptions,
  type LocalActivityOptions,
} from '@temporalio/workflow';
import type { ActivityFunction } from '@temporalio/common';

/**
 * Database activities: short, idempotent, retried until the database answers. The given failure
 * types are business outcomes that retrying cannot change.
 */
export const databaseActivity = (nonRetryableErrorTypes: string[] = []): ActivityOptions => ({
  startToCloseTimeout: '10 seconds',
  retry: {
    initialInterval: '200 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    nonRetryableErrorTypes,
  },
});

/**
 * The same short database steps as local activities: run by the worker inside the workflow task, with
 * no activity task of their own on the server (docs/performance.md). Retried
 * by the worker with the same policy; a worker dying mid-step makes the workflow task time out, and
 * the worker that takes it over runs the step again, so a step must be as idempotent as an activity.
 */
export const localDatabaseActivity = (nonRetryableErrorTypes: string[] = []): LocalActivityOptions => {
  const { startToCloseTimeout, retry } = databaseActivity(nonRetryableErrorTypes);
  return { startToCloseTimeout, retry };
};

/**
 * The ApplicationFailure an activity failed with, if it failed with one: wrapped in an
 * ActivityFailure for an activity, as it came for a local activity (the SDK hands a local
 * activity's failure to the workflow unwrapped).
 */
export const applicationFailure = (err: unknown): ApplicationFailure | undefined => {
  const cause: unknown = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure ? cause : undefined;
};

/** The ApplicationFailure type an activity (or a local activity) failed with, if it failed with one. */
export const failureType = (err: unknown): string | undefined => applicationFailure(err)?.type ?? undefined;

/**
 * Activities whose calls carry a summary (what the Web UI's timeline shows for each): `summaryOf`
 * names the call from the activity's name and arguments. A summary is user metadata of the
 * ScheduleActivityTask command, not part of what replay compares, so adding it needs no patch.
 * `activities`: what proxyActivities or proxyLocalActivities made.
 */
export function withSummaries<P extends object>(
  activities: P,
  summaryOf: (name: string, args: unknown[]) => string | undefined,
): P {
  return new Proxy(activities, {
    get(target, name) {
      const activity = Reflect.get(target, name) as ActivityFunctionWithOptions<ActivityFunction>;
      return (...args: unknown[]) => {
        const summary = summaryOf(String(name), args);
        return summary ? activity.executeWithOptions({ summary }, args) : activity(...args);
      };
    },
  });
}
