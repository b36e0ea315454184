import { expect } from 'chai';
import { loadConfig } from '../../config/index.js';
import { WORKFLOW_STACK_FRAMES, workerTuning } from '../../worker/create-worker.js';
import { stack } from '../support/stack.js';
import {
  createEndorsement,
  makeWorld,
  waitFor,
  waitForStatus,
  workflowHandle,
} from '../workflows/endorsement-support.js';

/** The stacks of the stack trace query (what the Web UI's Stack Trace tab shows), as frame lists. */
const stacksOf = (trace: string): string[][] =>
  trace
    .split(/\n\s*\n/)
    .map((stack) => stack.split('\n').filter((line) => line.trim().startsWith('at ')))
    .filter((frames) => frames.length > 0);

describe('worker: workflow stacks', () => {
  it('keeps at most six frames a stack in workflow code, still naming the step an endorsement waits in', async () => {
    const world = await makeWorld();
    const id = await createEndorsement(world);
    await waitForStatus(id, 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
    // Submitted to the (manual) insurer, the story waits for its decision.
    const trace = await waitFor(
      () => workflowHandle(id).query<string>('__stack_trace'),
      (t) => t.includes('at waitForDecision ('),
      'the stack trace to show the wait for a decision',
    );
    const stacks = stacksOf(trace);
    expect(stacks.length).to.be.greaterThan(1);
    expect(Math.max(...stacks.map((s) => s.length))).to.be.at.most(WORKFLOW_STACK_FRAMES);
    expect(trace).to.match(/at waitForDecision \(.*workflows\/endorsement\/steps\.ts:\d+:\d+\)/);
    // This thread's own stacks (the activities', here the test's) are not cut to the workflows' six.
    expect(Error.stackTraceLimit).to.be.greaterThan(WORKFLOW_STACK_FRAMES);
  });
});

describe('worker: tuning', () => {
  it('derives activity slots from the database pool unless set, and takes the rest as configured', () => {
    expect(workerTuning(loadConfig({ DATABASE_POOL_MAX: '12' }))).to.deep.equal({
      maxConcurrentActivityTaskExecutions: 24,
      maxConcurrentWorkflowTaskExecutions: 40,
      maxCachedWorkflows: 1000,
    });
    expect(
      workerTuning(
        loadConfig({
          DATABASE_POOL_MAX: '12',
          WORKER_ACTIVITY_CONCURRENCY: '7',
          WORKER_WORKFLOW_CONCURRENCY: '9',
          WORKER_MAX_CACHED_WORKFLOWS: '5000',
        }),
      ),
    ).to.deep.equal({
      maxConcurrentActivityTaskExecutions: 7,
      maxConcurrentWorkflowTaskExecutions: 9,
      maxCachedWorkflows: 5000,
    });
  });

  it('runs the SDK worker with the configured slots and cache', () => {
    const { worker, config: running } = stack();
    const tuning = workerTuning(running);
    // The SDK compiles the two slot counts into its tuner's fixed-size slot suppliers.
    const { tuner } = worker.options;
    const slots = (supplier: unknown) => (supplier as { numSlots: number }).numSlots;
    expect({
      maxConcurrentActivityTaskExecutions: slots(tuner.activityTaskSlotSupplier),
      maxConcurrentWorkflowTaskExecutions: slots(tuner.workflowTaskSlotSupplier),
      maxCachedWorkflows: worker.options.maxCachedWorkflows,
    }).to.deep.equal(tuning);
    expect(tuning.maxCachedWorkflows).to.equal(running.WORKER_MAX_CACHED_WORKFLOWS);
  });
});
