import { signalStorm } from '../support/signals.js';

/** Fault 6, quick: a few random storms (the full run has more, test/resilience/full). */
describe('resilience: insurer decisions delivered three times, out of order, with cancels (quick)', () => {
  it('changes the endorsement once and ends consistent', async function () {
    this.timeout(180_000);
    await signalStorm(10);
  });
});
