import { signalStorm } from '../support/signals.js';

/** Fault 6, full: many random storms of triple decisions and cancels. */
describe('resilience: insurer decisions delivered three times, out of order, with cancels', () => {
  it('changes the endorsement once and ends consistent', async function () {
    this.timeout(600_000);
    await signalStorm(60);
  });
});
