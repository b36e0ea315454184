import { formatPaise, toPaise } from '../premium.js';

/**
 * The CD (cash deposit) account's rules, pure: what an endorsement holds, when an account runs low,
 * how an operator's top-up amount is read. Money in integer paise (BigInt).
 */

/** Ledger entry kinds: what moved the balance (top_up, debit, credit, adjustment) or the held sum. */
export const CD_ENTRY_KINDS = ['top_up', 'hold', 'release', 'debit', 'credit', 'adjustment'] as const;
export type CdEntryKind = (typeof CD_ENTRY_KINDS)[number];

/** What an endorsement holds at review: its premium when positive (addition, sum-insured increase). */
export function holdFor(premiumImpact: string): bigint {
  const paise = toPaise(premiumImpact);
  return paise > 0n ? paise : 0n;
}

/** What an endorsement's review would do to its policy's CD account, as the review decides it. */
export interface CdForecast {
  /** The available balance now (balance less holds). */
  available: bigint;
  /** What the endorsement holds (its premium when positive; a refund holds nothing). */
  hold: bigint;
  /** The available balance once the hold is placed (unchanged while it waits). */
  availableAfter: bigint;
  /** Its cover would wait for funds: the balance does not cover the hold, or others wait first. */
  waitsForFunds: boolean;
}

/**
 * The rule holdEndorsementFunds applies at review, without writing: the hold is placed when the
 * available balance covers it and no older endorsement of the policy is waiting (the queue is kept
 * in order); otherwise the endorsement waits for a top-up. A forecast: holds and top-ups between
 * now and the review change it.
 */
export function forecastHold(available: bigint, othersWaiting: boolean, premiumImpact: string): CdForecast {
  const hold = holdFor(premiumImpact);
  const waitsForFunds = hold > 0n && (othersWaiting || hold > available);
  return { available, hold, availableAfter: waitsForFunds ? available : available - hold, waitsForFunds };
}

/** A refund (negative premium: a deletion, a sum-insured decrease) is credited and funds the waiting queue. */
export const isRefund = (premiumImpact: string): boolean => toPaise(premiumImpact) < 0n;

/** Why an endorsement waits (shown to the client as `awaiting_funds_reason`). */
export function awaitingFundsReason(available: string, premium: string): string {
  return (
    `Waiting for funds: the policy's available CD balance ${available} does not cover the premium ` +
    `${premium}; it goes on when a top-up covers it (oldest first)`
  );
}

/**
 * Rupees with paise exact (`1234.56`, `500`, `0.5`): positive, at most two decimals. Throws a
 * RangeError saying what is wrong; never rounds.
 */
export function parseRupees(text: string): bigint {
  const t = text.trim();
  if (/^-/.test(t)) throw new RangeError(`amount must be positive: ${text}`);
  if (/^\d+\.\d{3,}$/.test(t)) throw new RangeError(`amount has more than two decimals (paise): ${text}`);
  if (!/^\d{1,12}(\.\d{1,2})?$/.test(t)) throw new RangeError(`not an amount in rupees: ${text}`);
  const paise = toPaise(t);
  if (paise <= 0n) throw new RangeError(`amount must be positive: ${text}`);
  return paise;
}

/** Paise as the stored decimal text (re-exported so callers need one module). */
export const rupees = (paise: bigint): string => formatPaise(paise);
