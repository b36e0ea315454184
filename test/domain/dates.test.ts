import { expect } from 'chai';
import { daysBetween, isCalendarDate } from '../../domain/dates.js';

/** The reading every date field of the API shares: a YYYY-MM-DD string naming a real day. */
function byDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const dt = new Date(Date.UTC(y, mo - 1, d));
  return dt.getUTCFullYear() === y && dt.getUTCMonth() === mo - 1 && dt.getUTCDate() === d;
}

describe('domain: calendar dates', () => {
  it('accepts real days and refuses impossible ones', () => {
    for (const ok of ['2024-02-29', '2000-02-29', '2026-12-31', '2026-01-01', '0100-03-01', '9999-12-31'])
      expect(isCalendarDate(ok), ok).to.equal(true);
    for (const bad of ['2025-02-29', '1900-02-29', '2025-02-30', '2026-04-31', '2026-13-01', '2026-00-10'])
      expect(isCalendarDate(bad), bad).to.equal(false);
    for (const bad of ['2026-1-01', '26-01-01', '2026-01-01T00:00:00Z', ' 2026-01-01', '', '0099-01-01'])
      expect(isCalendarDate(bad), JSON.stringify(bad)).to.equal(false);
  });

  it('agrees with the Date calendar on every month 0-13 and day 0-32 of leap, century and edge years', () => {
    const pad = (n: number, w: number) => String(n).padStart(w, '0');
    for (const y of [99, 100, 1600, 1700, 1900, 1999, 2000, 2023, 2024, 2100, 2400]) {
      for (let mo = 0; mo <= 13; mo++) {
        for (let d = 0; d <= 32; d++) {
          const value = `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}`;
          expect(isCalendarDate(value), value).to.equal(byDate(value));
        }
      }
    }
  });
});

describe('domain: days between two dates', () => {
  const byDate = (a: string, b: string) =>
    Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000);

  it('counts the days the Date calendar counts, across leap days, centuries and the epoch', () => {
    const from = ['0100-03-01', '1600-02-28', '1899-12-31', '1969-12-31', '1970-01-01', '2024-02-28'];
    for (const a of from) {
      const start = Date.parse(`${a}T00:00:00Z`);
      for (let step = 0; step <= 1_200; step += 7) {
        for (const span of [step, step * 61, step * 401]) {
          const b = new Date(start + span * 86_400_000).toISOString().slice(0, 10);
          expect(daysBetween(a, b), `${a}..${b}`).to.equal(byDate(a, b));
          expect(daysBetween(b, a), `${b}..${a}`).to.equal(byDate(b, a));
        }
      }
    }
    expect(daysBetween('2028-01-01', '2028-12-31')).to.equal(365);
    expect(daysBetween('2026-04-01', '2026-04-01')).to.equal(0);
  });

  it('answers NaN for a value that is not a YYYY-MM-DD date, as the Date calendar does', () => {
    expect(daysBetween('2026-1-01', '2026-02-01')).to.be.NaN;
    expect(daysBetween('2026-01-01', 'soon')).to.be.NaN;
  });
});
