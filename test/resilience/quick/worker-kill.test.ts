import { workerKillRun } from '../support/worker-kill.js';

/** Fault 1, quick: a small run with two kills (the full run, 500 and five kills, is test/resilience/full). */
describe('resilience: worker SIGKILLed while endorsements run (quick)', () => {
  it('ends every endorsement once, with no duplicate member or ledger row, the API agreeing with Temporal', async function () {
    this.timeout(300_000);
    await workerKillRun({ endorsements: 30, kills: 2, perSecond: 1.5, settleMs: 180_000 });
  });
});
