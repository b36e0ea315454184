import { fuzzEveryRoute } from '../support/fuzz.js';

/** Abuse 9, quick: a few dozen random requests per route (the full run sends many more). */
describe('resilience: property-based fuzzing of every route (quick)', () => {
  it('never answers 5xx, always with the spec’s error shape, with bounded memory', async function () {
    this.timeout(300_000);
    await fuzzEveryRoute(30, 64);
  });
});
