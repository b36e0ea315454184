import { expect } from 'chai';
import { SMOKE_WORKFLOW, smokeWorkflowId } from '../../workflows/smoke/contract.js';
import { stack } from '../support/stack.js';

describe('smoke workflow on a real worker', () => {
  it('runs a workflow whose activity reaches PostgreSQL', async () => {
    const { temporal, taskQueue, runId } = stack();
    const result = await temporal.workflow.execute(SMOKE_WORKFLOW, {
      taskQueue,
      workflowId: smokeWorkflowId(`${runId}-${Date.now()}`),
      args: [{ name: 'hello' }],
    });
    expect(result).to.equal('workflow:activity:hello:db');
  });
});
