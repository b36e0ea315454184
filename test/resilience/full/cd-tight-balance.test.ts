import { tightBalanceKillRun } from '../support/cd-tight-balance.js';

/** Fault 1 with money: the worker crashes and is SIGKILLed while additions compete for a tight CD balance. */
describe('resilience: worker SIGKILLed while additions compete for a tight CD balance', () => {
  it('never overdraws, posts each endorsement once and funds the waiting ones oldest first', async function () {
    this.timeout(600_000);
    await tightBalanceKillRun({ endorsements: 60, covered: 20, kills: 3, settleMs: 240_000 });
  });
});
