import { z } from 'zod';
import { addDays, isCalendarDate } from '../dates.js';
import { childAgesOut, eligibilityRules, type EligibilityRules } from '../dependents/eligibility.js';
import type { EmployeeStatus, Relationship } from '../enums.js';
import { formatPaise, isAmount, toPaise, type Slab } from '../premium.js';

/**
 * D17's renewal of a policy term, pure. A renewal opens RENEWAL_LEAD_DAYS before the term's end (or
 * earlier on an operator's command), is confirmed or declined by HR, and confirms itself
 * RENEWAL_AUTO_CONFIRM_DAYS before the end unless declined. Confirmed, it is sent to the insurer and
 * takes effect on the next term's first day: the new term is a policy of its own.
 */
export const RENEWAL_STATUSES = ['DRAFT', 'CONFIRMED', 'DECLINED', 'RENEWED', 'EXPIRED'] as const;
export type RenewalStatus = (typeof RENEWAL_STATUSES)[number];

export const DEFAULT_RENEWAL_LEAD_DAYS = 90;
export const DEFAULT_RENEWAL_AUTO_CONFIRM_DAYS = 30;

export interface Term {
  startDate: string;
  endDate: string;
}

const YEAR = /^(\d{4})-(\d{2}-\d{2})$/;

/** The same calendar day a year on; 29 February becomes 28 February in a common year. */
export function sameDayNextYear(date: string): string {
  const m = YEAR.exec(date);
  if (!m) throw new RangeError(`not a date: ${date}`);
  const next = `${String(Number(m[1]) + 1).padStart(4, '0')}-${m[2]}`;
  return isCalendarDate(next) ? next : `${next.slice(0, 8)}28`;
}

/**
 * The next term of a policy: from the day after its end, for a year (2026-04-01..2027-03-31 renews as
 * 2027-04-01..2028-03-31). The insurer's quote may name other dates.
 */
export function nextTerm(current: Term): Term {
  const startDate = addDays(current.endDate, 1);
  return { startDate, endDate: addDays(sameDayNextYear(startDate), -1) };
}

/** The first day the renewal opens by itself, and the day it confirms itself (both Asia/Kolkata, D13). */
export const opensOn = (endDate: string, leadDays: number): string => addDays(endDate, -leadDays);
export const autoConfirmsOn = (endDate: string, autoConfirmDays: number): string =>
  addDays(endDate, -autoConfirmDays);

/** The instant a business date begins: midnight in Asia/Kolkata (UTC+05:30, no daylight saving). */
export const startOfBusinessDay = (date: string): number => Date.parse(`${date}T00:00:00+05:30`);

const money = z
  .union([z.string(), z.number()])
  .refine((v) => isAmount(v) && toPaise(v) >= 0n, 'must be an amount in rupees with at most 2 decimals')
  .transform((v) => formatPaise(toPaise(v)));
const date = z.string().refine(isCalendarDate, 'must be a date YYYY-MM-DD');

/**
 * The insurer's quote for the next term, loaded by an operator from JSON or YAML. Anything it leaves
 * out carries over from the current term; the slabs, when given, replace the current ones whole.
 */
export const renewalQuoteSchema = z
  .strictObject({
    start_date: date.optional(),
    end_date: date.optional(),
    slabs: z
      .array(z.strictObject({ sum_insured: money, annual_premium: money }))
      .min(1)
      .max(20)
      .optional(),
    default_sum_insured: money.optional(),
    net_premium: money.optional(),
    gross_premium: money.optional(),
    policy_number: z.string().min(1).max(64).optional(),
  })
  .refine((q) => !q.start_date || !q.end_date || q.start_date < q.end_date, {
    message: 'must be after start_date',
    path: ['end_date'],
  })
  .refine((q) => !q.slabs || new Set(q.slabs.map((s) => s.sum_insured)).size === q.slabs.length, {
    message: 'each sum_insured once',
    path: ['slabs'],
  })
  .refine(
    (q) => !q.default_sum_insured || !q.slabs || q.slabs.some((s) => s.sum_insured === q.default_sum_insured),
    { message: 'must be one of the slabs', path: ['default_sum_insured'] },
  );
export type RenewalQuote = z.output<typeof renewalQuoteSchema>;

/** What the next term is priced and dated by: the current policy's terms with the quote on top. */
export interface RenewalTerms {
  term: Term;
  slabs: Slab[];
  defaultSumInsured: string;
}

export function renewalTerms(
  current: { term: Term; slabs: Slab[]; defaultSumInsured: string },
  quote: RenewalQuote | null,
): RenewalTerms {
  const next = nextTerm(current.term);
  const slabs = quote?.slabs ?? current.slabs;
  const fallback = slabs.some((s) => s.sum_insured === current.defaultSumInsured)
    ? current.defaultSumInsured
    : slabs[0]!.sum_insured;
  return {
    term: { startDate: quote?.start_date ?? next.startDate, endDate: quote?.end_date ?? next.endDate },
    slabs,
    defaultSumInsured: quote?.default_sum_insured ?? fallback,
  };
}

/** One active member row of the current term, as the draft weighs it. */
export interface RenewalCandidate {
  memberId: string;
  employeeId: string;
  /** The client's own employee identifier (what an insurer file names). */
  employeeCode: string;
  dependentId: string | null;
  relationship: Relationship | null;
  dateOfBirth: string | null;
  employeeStatus: EmployeeStatus;
  sumInsured: string | null;
  coverageEndDate: string;
  uhid: string | null;
  insurerMemberId: string | null;
}

export const DROP_REASONS = ['EMPLOYEE_INACTIVE', 'CHILD_AGED_OUT', 'COVER_ENDS_BEFORE_RENEWAL'] as const;
export type DropReason = (typeof DROP_REASONS)[number];

export interface CarriedMember extends RenewalCandidate {
  /** The slab in the next term: the same sum insured when the quote keeps it, else the default. */
  nextSumInsured: string;
  annualPremiumBefore: string;
  annualPremiumAfter: string;
}

export interface DroppedMember extends RenewalCandidate {
  reason: DropReason;
  detail: string;
}

export interface RenewalDraft {
  terms: RenewalTerms;
  carried: CarriedMember[];
  dropped: DroppedMember[];
  /** Annual premium of every current member at the current rates (paise as decimal text). */
  premiumBefore: string;
  /** Annual premium of the carried members at the next term's rates. */
  premiumAfter: string;
  /** What the CD account needs for the next term: its premium, less the available balance carried. */
  cdTopUpNeeded: string;
}

const premiumFor = (slabs: readonly Slab[], sumInsured: string | null): bigint => {
  const slab = slabs.find((s) => sumInsured !== null && toPaise(s.sum_insured) === toPaise(sumInsured));
  return slab ? toPaise(slab.annual_premium) : 0n;
};

/**
 * The draft, computed from the current members whenever it is read or confirmed (so an ordinary
 * endorsement or census change made meanwhile is in it). A member is dropped when its employee is no
 * longer ACTIVE (with the employee's dependents), when it is a child over the policy's age limit on
 * the next term's first day (D16's age-out), or when its cover already ends before the renewal (a
 * DELETION on its way). Every other member is carried with its UHID and insurer member id.
 */
export function draftRenewal(input: {
  current: { term: Term; slabs: Slab[]; defaultSumInsured: string };
  quote: RenewalQuote | null;
  eligibility: Partial<EligibilityRules>;
  members: readonly RenewalCandidate[];
  cdAvailable: string;
}): RenewalDraft {
  const terms = renewalTerms(input.current, input.quote);
  const rules = eligibilityRules(input.eligibility);
  const carried: CarriedMember[] = [];
  const dropped: DroppedMember[] = [];
  let before = 0n;
  let after = 0n;
  for (const m of input.members) {
    const was = premiumFor(input.current.slabs, m.sumInsured);
    before += was;
    const drop = dropReason(m, input.current.term, terms.term, rules);
    if (drop) {
      dropped.push({ ...m, ...drop });
      continue;
    }
    const kept = terms.slabs.some(
      (s) => m.sumInsured !== null && toPaise(s.sum_insured) === toPaise(m.sumInsured),
    );
    const nextSumInsured = kept ? m.sumInsured! : terms.defaultSumInsured;
    const now = premiumFor(terms.slabs, nextSumInsured);
    after += now;
    carried.push({
      ...m,
      nextSumInsured,
      annualPremiumBefore: formatPaise(was),
      annualPremiumAfter: formatPaise(now),
    });
  }
  const shortfall = after - toPaise(input.cdAvailable);
  return {
    terms,
    carried,
    dropped,
    premiumBefore: formatPaise(before),
    premiumAfter: formatPaise(after),
    cdTopUpNeeded: formatPaise(shortfall > 0n ? shortfall : 0n),
  };
}

function dropReason(
  m: RenewalCandidate,
  current: Term,
  next: Term,
  rules: EligibilityRules,
): { reason: DropReason; detail: string } | null {
  if (m.employeeStatus !== 'ACTIVE') {
    return { reason: 'EMPLOYEE_INACTIVE', detail: `the employee is ${m.employeeStatus}` };
  }
  if (m.relationship === 'CHILD' && m.dateOfBirth && childAgesOut(rules, m.dateOfBirth, next.startDate)) {
    return {
      reason: 'CHILD_AGED_OUT',
      detail: `over the child age limit of ${rules.childMaxAge} on ${next.startDate}`,
    };
  }
  if (m.coverageEndDate < current.endDate) {
    return { reason: 'COVER_ENDS_BEFORE_RENEWAL', detail: `cover ends on ${m.coverageEndDate}` };
  }
  return null;
}
