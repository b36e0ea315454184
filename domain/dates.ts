import { rememberLast } from './memo.js';

/** The date layouts insurers' files use (an insurer's template names one). */
export const DATE_FORMATS = ['YYYY-MM-DD', 'DD/MM/YYYY', 'DD-MM-YYYY', 'DD-MMM-YYYY'] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const isLeapYear = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/**
 * True for a real calendar date written YYYY-MM-DD (2025-02-30 is not), from year 0100 on (as
 * `Date.UTC` reads years 0-99 as 1900-1999, they were never accepted). Arithmetic, not a Date: a bulk
 * request checks a hundred of these.
 */
export function isCalendarDate(value: string): boolean {
  const m = ISO_DATE.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 100 || mo < 1 || mo > 12 || d < 1) return false;
  return d <= (mo === 2 && isLeapYear(y) ? 29 : DAYS_IN_MONTH[mo - 1]!);
}

/**
 * Days since 1970-01-01 of a YYYY-MM-DD date, by arithmetic (the civil-calendar day count), NaN for
 * anything else. Not Date.parse, and remembered: a census prices ten thousand rows with six of these
 * each, on a few dozen distinct dates.
 */
const dayNumber = rememberLast((date: string): number => {
  const m = ISO_DATE.exec(date);
  if (!m) return Number.NaN;
  const month = Number(m[2]);
  // March-based years put the leap day last, so each era of 400 years has one shape.
  const year = Number(m[1]) - (month <= 2 ? 1 : 0);
  const era = Math.floor(year / 400);
  const yearOfEra = year - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + Number(m[3]) - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
});

/** Whole days from a to b (b - a) between two YYYY-MM-DD dates. */
export function daysBetween(a: string, b: string): number {
  return dayNumber(b) - dayNumber(a);
}

export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

export const minDate = (a: string, b: string): string => (a < b ? a : b);
export const maxDate = (a: string, b: string): string => (a > b ? a : b);
