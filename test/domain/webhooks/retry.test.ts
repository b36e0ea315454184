import { expect } from 'chai';
import { GIVE_UP_AFTER_MS, jitterFraction, retryDelayMs } from '../../../workflows/webhook/contract.js';

describe('webhook retry schedule', () => {
  const schedule = {
    initialIntervalMs: 10_000,
    maximumIntervalMs: 3_600_000,
    giveUpAfterMs: GIVE_UP_AFTER_MS,
  };

  it('doubles per attempt from the initial interval, each delay jittered within its upper half', () => {
    for (let attempt = 1; attempt <= 12; attempt++) {
      const base = Math.min(schedule.maximumIntervalMs, 10_000 * 2 ** (attempt - 1));
      const delay = retryDelayMs(schedule, 'dlv_a', attempt);
      expect(delay, `attempt ${attempt}`).to.be.within(base / 2, base);
    }
    expect(retryDelayMs(schedule, 'dlv_a', 1)).to.be.below(retryDelayMs(schedule, 'dlv_a', 4));
  });

  it('stays under the maximum interval however many attempts failed', () => {
    for (const attempt of [13, 30, 100, 10_000]) {
      expect(retryDelayMs(schedule, 'dlv_a', attempt)).to.be.within(1_800_000, 3_600_000);
    }
  });

  it('is the same on replay and differs between deliveries (no synchronized retries)', () => {
    expect(retryDelayMs(schedule, 'dlv_a', 5)).to.equal(retryDelayMs(schedule, 'dlv_a', 5));
    const delays = new Set(Array.from({ length: 50 }, (_, i) => retryDelayMs(schedule, `dlv_${i}`, 5)));
    expect(delays.size).to.be.above(40);
    const fractions = Array.from({ length: 1000 }, (_, i) => jitterFraction(`dlv_${i}:3`));
    expect(Math.min(...fractions)).to.be.within(0, 0.05);
    expect(Math.max(...fractions)).to.be.within(0.95, 1);
  });

  it('tries for about a day: some 30 attempts before the give-up time', () => {
    let elapsed = 0;
    let attempts = 1;
    while (elapsed + retryDelayMs(schedule, 'dlv_day', attempts) <= GIVE_UP_AFTER_MS) {
      elapsed += retryDelayMs(schedule, 'dlv_day', attempts);
      attempts++;
    }
    expect(attempts).to.be.within(20, 60);
    expect(elapsed).to.be.above(GIVE_UP_AFTER_MS - 3_600_000);
  });
});
