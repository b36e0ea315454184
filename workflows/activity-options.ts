import { ActivityFailure, ApplicationFailure, type ActivityOptions } from '@temporalio/workflow';

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

/** The ApplicationFailure type an activity failed with, if it failed with one. */
export const failureType = (err: unknown): string | undefined =>
  err instanceof ActivityFailure && err.cause instanceof ApplicationFailure
    ? (err.cause.type ?? undefined)
    : undefined;
