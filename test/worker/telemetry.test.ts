import { Writable } from 'node:stream';
import { expect } from 'chai';
import { createLogger } from '../../infra/logger.js';
import { sdkLogger } from '../../worker/telemetry.js';

/** The worker's SDK logger: Temporal's workflow and activity log calls as the service's JSON lines. */
describe('worker SDK logger', () => {
  const capture = () => {
    const lines: Record<string, unknown>[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    return { lines, logger: sdkLogger(createLogger('info', destination)) };
  };

  it('writes the workflow context and the endorsement id as JSON fields, at the same level', async () => {
    const { lines, logger } = capture();
    logger.info('endorsement status changed', {
      sdkComponent: 'workflow',
      workflowId: 'endorsement-end_abc',
      runId: 'r-1',
      endorsementId: 'end_abc',
      status: 'ENDORSEMENT_STATUS_SENT_TO_INSURER',
    });
    logger.log('WARN', 'endorsement stuck: no insurer decision within the SLA', { endorsementId: 'end_abc' });
    logger.debug('below the level', { endorsementId: 'end_abc' });
    await new Promise((resolve) => setImmediate(resolve));

    expect(lines).to.have.length(2);
    expect(lines[0]).to.include({
      level: 30,
      msg: 'endorsement status changed',
      workflowId: 'endorsement-end_abc',
      runId: 'r-1',
      endorsementId: 'end_abc',
      status: 'ENDORSEMENT_STATUS_SENT_TO_INSURER',
    });
    expect(lines[1]).to.include({ level: 40, endorsementId: 'end_abc' });
  });

  it('keeps the service redaction, and leaves out the activity task token', async () => {
    const { lines, logger } = capture();
    logger.error('activity failed', {
      workflowId: 'endorsement-end_abc',
      activityType: 'submitToInsurer',
      taskToken: 'CiQwMWEy',
      body: { email: 'a@example.com' },
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines[0]).to.include({ level: 50, body: '[redacted]', activityType: 'submitToInsurer' });
    expect(lines[0]).to.not.have.property('taskToken');
  });
});
