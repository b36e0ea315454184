import { rememberLast } from './memo.js';
import { daysBetween } from './dates.js';

/** A sum-insured slab and its annual per-life premium; money as exact decimal strings. */
export interface Slab {
  sum_insured: string;
  annual_premium: string;
}

/**
 * Premium arithmetic (D7) in integer paise held as BigInt: no floating point touches money.
 *
 * Day-count convention: actual days, both ends inclusive, over the policy period's actual days
 * (also inclusive). A cover of `coveredDays` on a policy of `periodDays` costs
 * annual_premium × coveredDays / periodDays, rounded half away from zero to the paisa.
 * Example: ₹2,000 a year on 2028-01-01..2028-12-31 (366 days), added from 2028-07-02 (183 days): ₹1,000.
 */

const DECIMAL = /^(-)?(\d{1,15})(?:\.(\d{1,2}))?$/;

/** Exact decimal (string such as "3650.00", or a finite number with at most 2 decimals) to paise. */
export function toPaise(amount: string | number): bigint {
  const paise = paiseOrNull(amount);
  if (paise === null) throw new RangeError('not a decimal amount with at most 2 decimals');
  return paise;
}

/**
 * toPaise's reading, null where toPaise throws (checks in bulk pay no exception). Text remembered:
 * a census reads its policies' few slab amounts and premiums again on every row.
 */
function paiseOrNull(amount: string | number): bigint | null {
  return typeof amount === 'number' ? decimalPaise(numberText(amount)) : textPaise(amount);
}

function decimalPaise(text: string): bigint | null {
  const m = DECIMAL.exec(text);
  if (!m) return null;
  // One BigInt of the digits with the decimals padded to two: the amount in paise.
  const paise = BigInt(`${m[2]!}${(m[3] ?? '').padEnd(2, '0')}`);
  return m[1] ? -paise : paise;
}

const textPaise = rememberLast((text: string) => decimalPaise(text.trim()));

/** True when the value is an amount toPaise accepts. */
export function isAmount(amount: string | number): boolean {
  return paiseOrNull(amount) !== null;
}

function numberText(n: number): string {
  if (!Number.isFinite(n)) return 'NaN';
  const text = String(n);
  return /e/i.test(text) ? 'NaN' : text;
}

/** Paise to the stored decimal form: "1000.00", "-12.50". */
export function paiseText(paise: bigint): string {
  const sign = paise < 0n ? '-' : '';
  const abs = paise < 0n ? -paise : paise;
  return `${sign}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`;
}

/**
 * paiseText remembered, for amounts that repeat (a census's premiums and sums insured). A running
 * balance, different at every step, is paiseText's: remembering it would only fill the memory.
 */
export const formatPaise = rememberLast(paiseText);

/** Days from start to end, both included (2026-04-01..2026-04-01 is one day). */
export function inclusiveDays(start: string, end: string): number {
  return daysBetween(start, end) + 1;
}

/** a × b / c rounded half away from zero; c > 0. */
function mulDivRound(a: bigint, b: bigint, c: bigint): bigint {
  const n = a * b;
  const abs = n < 0n ? -n : n;
  const q = (abs * 2n + c) / (2n * c);
  return n < 0n ? -q : q;
}

/** The annual premium for `days` of cover on a policy of `periodDays`, in paise. */
export function proRata(annualPaise: bigint, days: number, periodDays: number): bigint {
  if (periodDays <= 0) throw new RangeError('policy period must have at least one day');
  return mulDivRound(annualPaise, BigInt(Math.max(0, days)), BigInt(periodDays));
}

export interface PolicyPeriod {
  startDate: string;
  endDate: string;
}

/** ADDITION: the premium for the covered days, positive (debited from the CD balance on approval). */
export function additionPremium(
  policy: PolicyPeriod,
  annualPremium: string,
  start: string,
  end: string,
): string {
  const periodDays = inclusiveDays(policy.startDate, policy.endDate);
  return formatPaise(proRata(toPaise(annualPremium), inclusiveDays(start, end), periodDays));
}

/**
 * DELETION: a negative refund for the unused days, i.e. the days after `lastCoveredDay` up to the
 * member's own coverage end (credited to the CD balance on approval).
 */
export function deletionRefund(
  policy: PolicyPeriod,
  annualPremium: string,
  lastCoveredDay: string,
  memberCoverageEnd: string,
): string {
  const periodDays = inclusiveDays(policy.startDate, policy.endDate);
  const unused = daysBetween(lastCoveredDay, memberCoverageEnd);
  return formatPaise(-proRata(toPaise(annualPremium), unused, periodDays));
}

/** MODIFICATION: the difference of the two slabs' premiums over the covered days (either sign). */
export function modificationPremium(
  policy: PolicyPeriod,
  fromAnnualPremium: string,
  toAnnualPremium: string,
  start: string,
  end: string,
): string {
  const periodDays = inclusiveDays(policy.startDate, policy.endDate);
  const diff = toPaise(toAnnualPremium) - toPaise(fromAnnualPremium);
  return formatPaise(proRata(diff, inclusiveDays(start, end), periodDays));
}

/** The policy slab with exactly this sum insured, compared in paise ("300000" = "300000.00"). */
export function findSlab(slabs: readonly Slab[], sumInsured: string | number): Slab | undefined {
  const wanted = paiseOrNull(sumInsured);
  if (wanted === null) return undefined;
  const paise = slabPaise(slabs);
  const at = paise.indexOf(wanted);
  return at === -1 ? undefined : slabs[at];
}

/**
 * Each slab's sum insured in paise (null: not an amount), read once per slab list: a census prices
 * every row against its policy's same list. Keyed weakly by the list, which nobody changes in place.
 */
const slabPaiseOf = new WeakMap<readonly Slab[], (bigint | null)[]>();
function slabPaise(slabs: readonly Slab[]): (bigint | null)[] {
  let paise = slabPaiseOf.get(slabs);
  if (!paise) slabPaiseOf.set(slabs, (paise = slabs.map((s) => paiseOrNull(s.sum_insured))));
  return paise;
}

/** The stored decimal form of an amount ("300000" -> "300000.00"). */
export const normaliseAmount = (amount: string | number): string => formatPaise(toPaise(amount));

/** a >= b for two decimal amounts. */
export const amountAtLeast = (a: string, b: string): boolean => toPaise(a) >= toPaise(b);
