import { expect } from 'chai';
import fc from 'fast-check';
import { businessDate } from '../../domain/clock.js';

/** The business day as the tz database's Asia/Kolkata reads it, through ICU. */
const kolkata = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'Asia/Kolkata',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

describe('domain: the business day (Asia/Kolkata)', () => {
  it('turns at midnight in Kolkata, 18:30 UTC the day before', () => {
    expect(businessDate(new Date('2026-03-31T18:29:59.999Z'))).to.equal('2026-03-31');
    expect(businessDate(new Date('2026-03-31T18:30:00.000Z'))).to.equal('2026-04-01');
    expect(businessDate(new Date('2024-02-28T18:30:00Z'))).to.equal('2024-02-29');
    expect(businessDate(new Date('2026-12-31T18:30:00Z'))).to.equal('2027-01-01');
  });

  it('reads every instant as the tz database does, the wartime offsets before 1946 included (property)', () => {
    const instants = fc.oneof(
      fc.integer({ min: Date.UTC(1850, 0, 1), max: Date.UTC(2200, 0, 1) }),
      // Around each midnight in Kolkata, where an offset a minute off would show.
      fc
        .integer({ min: -30_000, max: 100_000 })
        .chain((day) =>
          fc.integer({ min: -120, max: 120 }).map((s) => day * 86_400_000 - 19_800_000 + s * 1000),
        ),
      fc.constantFrom(
        Date.UTC(1945, 9, 14, 17, 29, 59),
        Date.UTC(1945, 11, 31, 18, 30),
        Date.UTC(9998, 11, 31, 18, 30),
      ),
    );
    fc.assert(
      fc.property(instants, (ms) => {
        expect(businessDate(new Date(ms)), new Date(ms).toISOString()).to.equal(kolkata.format(new Date(ms)));
      }),
      { numRuns: 2000 },
    );
  });
});
