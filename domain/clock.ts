/** The one source of "now" (D13). Tests pin it; everything date-based asks it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export function fixedClock(
  at: Date | string,
): Clock & { set(at: Date | string): void; advance(ms: number): void } {
  let current = new Date(at);
  return {
    now: () => new Date(current),
    set: (next) => {
      current = new Date(next);
    },
    advance: (ms) => {
      current = new Date(current.getTime() + ms);
    },
  };
}

const kolkataDate = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'Asia/Kolkata',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

/**
 * Asia/Kolkata has kept UTC+05:30 without daylight saving since 1945-10-15 (the tz database), so an
 * instant from 1946 on is read by arithmetic: every request that checks a date asks for today, and in
 * the API's CPU profile under the bulk update bench the formatter with a time zone took about four
 * times what the arithmetic takes. Earlier instants (and far-future ones) go to the formatter.
 */
const KOLKATA_OFFSET_MS = (5 * 60 + 30) * 60_000;
const FIXED_FROM = Date.UTC(1946, 0, 1);
const FIXED_UNTIL = Date.UTC(9999, 0, 1);

/** Calendar date (YYYY-MM-DD) in Asia/Kolkata, the service's business day. */
export function businessDate(at: Date): string {
  const ms = at.getTime();
  if (ms >= FIXED_FROM && ms < FIXED_UNTIL)
    return new Date(ms + KOLKATA_OFFSET_MS).toISOString().slice(0, 10);
  return kolkataDate.format(at);
}

export function today(clock: Clock): string {
  return businessDate(clock.now());
}
