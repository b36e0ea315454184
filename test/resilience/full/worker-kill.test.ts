import { workerKillRun } from '../support/worker-kill.js';

/** Fault 1, full: 500 endorsements, the worker SIGKILLed five times while they run. */
describe('resilience: worker SIGKILLed five times while 500 endorsements run', () => {
  it('ends every endorsement once, with no duplicate member or ledger row, the API agreeing with Temporal', async function () {
    this.timeout(900_000);
    await workerKillRun({ endorsements: 500, kills: 5, perSecond: 5, settleMs: 480_000 });
  });
});
