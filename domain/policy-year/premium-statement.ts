import type { CdEntryKind } from '../cd-account/account.js';
import { addDays, daysBetween } from '../dates.js';
import { formatPaise, inclusiveDays, toPaise } from '../premium.js';

/**
 * The monthly premium statement of a policy (D17), pure: which days a month spans in India (D13),
 * the pro-rata days an endorsement was priced for, and the statement's totals, in exact paise.
 */

/** `2026-11` → its first and last day; undefined for anything else (`2026-13`, `2026-1`). */
export function monthDays(month: string): { from: string; to: string } | undefined {
  const m = /^(\d{4})-(\d{2})$/.exec(month);
  if (!m) return undefined;
  const monthNo = Number(m[2]);
  if (monthNo < 1 || monthNo > 12) return undefined;
  const from = `${m[1]}-${m[2]}-01`;
  const next =
    monthNo === 12 ? `${Number(m[1]) + 1}-01-01` : `${m[1]}-${String(monthNo + 1).padStart(2, '0')}-01`;
  return { from, to: addDays(next, -1) };
}

/** What the statement needs of an endorsement to say how many days its premium covers. */
export interface PricedCover {
  type: string;
  coverageStartDate: string;
  coverageEndDate: string;
  /** A DELETION's member's cover end before it (the refund runs from the day after the last covered day). */
  coverEndBefore: string | null;
}

/**
 * The days the premium was pro-rated for, as decideEndorsement priced it: the covered days (both ends
 * included) of an ADDITION or a MODIFICATION, the unused days after the last covered day of a DELETION.
 */
export function pricedDays(cover: PricedCover): number {
  if (cover.type === 'ENDORSEMENT_TYPE_DELETION') {
    return Math.max(0, daysBetween(cover.coverageEndDate, cover.coverEndBefore ?? cover.coverageEndDate));
  }
  return inclusiveDays(cover.coverageStartDate, cover.coverageEndDate);
}

/** One posting as the statement lists it; amounts as stored decimal text (INR, paise exact). */
export interface StatementLine {
  kind: CdEntryKind;
  amount: string;
  balanceAfter: string;
}

/**
 * The closing balance: the opening plus every posting, in paise. Each posting's running balance must
 * agree with it (one ledger, one order); a mismatch is a broken ledger and throws rather than print
 * a statement that does not add up.
 */
export function closingBalance(opening: string, lines: readonly StatementLine[]): string {
  let balance = toPaise(opening);
  for (const line of lines) {
    balance += toPaise(line.amount);
    if (balance !== toPaise(line.balanceAfter)) {
      throw new Error(`the CD ledger does not add up: ${formatPaise(balance)} against ${line.balanceAfter}`);
    }
  }
  return formatPaise(balance);
}
