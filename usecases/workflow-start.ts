import {
  WorkflowExecutionAlreadyStartedError,
  type Client,
  type WorkflowStartOptions,
} from '@temporalio/client';
import type { Workflow } from '@temporalio/workflow';
import type { Config } from '../config/index.js';

/**
 * The one way a stored record (endorsement, grant, census batch) gets its workflow: store, start,
 * and undo the store when the start fails, with the reconciler healing a crash in between.
 */

/** Bounds on how long a request waits for Temporal before answering 503 (the client retries). */
const START_DEADLINE_MS = 4_000;

export interface StartDeps {
  temporal: Client;
  config: Config;
}

/**
 * An accepted create whose workflow could not be started, and whose row was therefore removed:
 * the client holds nothing. `cause` is the start's error (the caller answers 503 when Temporal
 * was unreachable).
 */
export class WorkflowNotStarted extends Error {
  constructor(cause: unknown) {
    super('the workflow could not be started; the request was undone', { cause });
  }
}

/**
 * Starts the record's workflow, then records that it runs. Idempotent: the workflow id is the
 * record's, so a start while it runs finds it, and a start after it closed is refused and counts as
 * started. The API, the cancel path and the reconcilers all start through here.
 */
export async function startRecordWorkflow<W extends Workflow>(
  deps: StartDeps,
  workflow: W | string,
  options: WorkflowStartOptions<W>,
  markStarted: () => Promise<unknown>,
): Promise<void> {
  try {
    await deps.temporal.withDeadline(Date.now() + START_DEADLINE_MS, () =>
      deps.temporal.workflow.start(workflow, options),
    );
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  await markStarted();
}

/**
 * Stores the record, then starts its workflow. If the start fails the record is discarded (only while
 * nobody has started it) and WorkflowNotStarted is thrown, so the client never holds an id without a
 * workflow; if the workflow or the reconciler got to it first, it stands and is returned. A crash
 * between the store and the start is healed by the reconciler (the record stays unmarked).
 */
export async function storeThenStart<T>(
  store: () => Promise<T>,
  start: (stored: T) => Promise<void>,
  discardUnstarted: (stored: T) => Promise<boolean>,
): Promise<T> {
  const stored = await store();
  try {
    await start(stored);
  } catch (err) {
    if (await discardUnstarted(stored)) throw new WorkflowNotStarted(err);
  }
  return stored;
}
