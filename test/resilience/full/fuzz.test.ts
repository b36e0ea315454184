import { fuzzEveryRoute } from '../support/fuzz.js';

/** Abuse 9, full: hundreds of random requests per route. */
describe('resilience: property-based fuzzing of every route', () => {
  it('never answers 5xx, always with the spec’s error shape, with bounded memory', async function () {
    this.timeout(1_200_000);
    await fuzzEveryRoute(400, 64);
  });
});
