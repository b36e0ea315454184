import { daysBetween } from '../dates.js';
import type { Relationship } from '../enums.js';

/**
 * A policy's eligibility rules for dependents (D16), each overridable in the policy's reference data.
 * The life-event window applies to a dependent joining an employee who is already covered: a spouse
 * within `lifeEventWindowDays` of the marriage, a child within that many days of the birth (or other
 * event, e.g. adoption), unless today lies in the policy's mid-term window, when any later addition
 * is accepted.
 */
export interface EligibilityRules {
  lifeEventWindowDays: number;
  /** Inclusive YYYY-MM-DD dates during which additions are open whatever the event date; null: none. */
  midTermWindow: { from: string; to: string } | null;
  /** A child is covered while its age in completed years is at most this. */
  childMaxAge: number;
  parentMaxAge: number;
  maxChildren: number;
  /** False: parents and parents-in-law cannot both be covered. */
  parentsWithParentsInLaw: boolean;
}

export const DEFAULT_ELIGIBILITY_RULES: Readonly<EligibilityRules> = Object.freeze({
  lifeEventWindowDays: 30,
  midTermWindow: null,
  childMaxAge: 25,
  parentMaxAge: 80,
  maxChildren: 2,
  parentsWithParentsInLaw: false,
});

/** The policy's rules: D16's defaults with the policy's own overrides on top. */
export function eligibilityRules(overrides: Partial<EligibilityRules> = {}): EligibilityRules {
  const defined = Object.entries(overrides).filter(([, v]) => v !== undefined);
  return { ...DEFAULT_ELIGIBILITY_RULES, ...(Object.fromEntries(defined) as Partial<EligibilityRules>) };
}

/** The stable codes a breach is known by (API errors, census reports). */
export const ELIGIBILITY_RULE_CODES = [
  'LIFE_EVENT_DATE_REQUIRED',
  'LIFE_EVENT_DATE_INVALID',
  'LIFE_EVENT_WINDOW',
  'CHILD_AGE_LIMIT',
  'PARENT_AGE_LIMIT',
  'MAX_CHILDREN',
  'PARENTS_AND_PARENTS_IN_LAW',
] as const;
export type EligibilityRuleCode = (typeof ELIGIBILITY_RULE_CODES)[number];

export interface EligibilityBreach {
  rule: EligibilityRuleCode;
  /** Names the rule and the limit; never the person's name or date of birth. */
  message: string;
}

export interface ExistingDependent {
  relationship: Relationship;
  dateOfBirth: string;
}

export interface JoiningDependent extends ExistingDependent {
  /** Marriage (spouse), birth or adoption (child); a child's defaults to its date of birth. */
  eventDate?: string | undefined;
}

export interface EligibilityCheck {
  rules: EligibilityRules;
  /** The employee's other dependents (the joining one left out). */
  existing: readonly ExistingDependent[];
  dependent: JoiningDependent;
  /** The day of the check (Asia/Kolkata). */
  on: string;
  /** The employee is already covered: the life-event window applies. */
  joiningCoveredEmployee: boolean;
}

/** Age in completed years on a date (both YYYY-MM-DD); a 29 February birthday counts on 1 March. */
export function ageOn(dateOfBirth: string, on: string): number {
  const years = Number(on.slice(0, 4)) - Number(dateOfBirth.slice(0, 4));
  return on.slice(5) < dateOfBirth.slice(5) ? years - 1 : years;
}

/** A child over the policy's age limit on the date (e.g. the policy's renewal). */
export function childAgesOut(rules: EligibilityRules, dateOfBirth: string, on: string): boolean {
  return ageOn(dateOfBirth, on) > rules.childMaxAge;
}

/** Every rule the joining dependent breaks, in a stable order; empty when it may join. */
export function eligibilityBreaches(check: EligibilityCheck): EligibilityBreach[] {
  return [...lifeEventBreaches(check), ...ageBreaches(check), ...familyBreaches(check)];
}

function lifeEventBreaches({
  rules,
  dependent,
  on,
  joiningCoveredEmployee,
}: EligibilityCheck): EligibilityBreach[] {
  const { relationship } = dependent;
  if (!joiningCoveredEmployee || (relationship !== 'SPOUSE' && relationship !== 'CHILD')) return [];
  const event = dependent.eventDate ?? (relationship === 'CHILD' ? dependent.dateOfBirth : undefined);
  if (event === undefined) {
    return [
      breach(
        'LIFE_EVENT_DATE_REQUIRED',
        'event_date: a spouse joining a covered employee needs the date of marriage',
      ),
    ];
  }
  if (event > on || event < dependent.dateOfBirth) {
    return [breach('LIFE_EVENT_DATE_INVALID', 'event_date: must lie between the date of birth and today')];
  }
  const window = rules.midTermWindow;
  if (window && window.from <= on && on <= window.to) return [];
  if (daysBetween(event, on) <= rules.lifeEventWindowDays) return [];
  const what = relationship === 'SPOUSE' ? 'marriage' : 'birth or adoption';
  return [
    breach(
      'LIFE_EVENT_WINDOW',
      `event_date: a ${relationship.toLowerCase()} joins within ${rules.lifeEventWindowDays} days of the ${what} unless the policy's mid-term window is open`,
    ),
  ];
}

function ageBreaches({ rules, dependent, on }: EligibilityCheck): EligibilityBreach[] {
  const age = ageOn(dependent.dateOfBirth, on);
  if (dependent.relationship === 'CHILD' && age > rules.childMaxAge) {
    return [breach('CHILD_AGE_LIMIT', `date_of_birth: a child is covered up to age ${rules.childMaxAge}`)];
  }
  const parent = dependent.relationship === 'PARENT' || dependent.relationship === 'PARENT_IN_LAW';
  if (parent && age > rules.parentMaxAge) {
    return [breach('PARENT_AGE_LIMIT', `date_of_birth: a parent is covered up to age ${rules.parentMaxAge}`)];
  }
  return [];
}

function familyBreaches({ rules, dependent, existing }: EligibilityCheck): EligibilityBreach[] {
  const count = (r: Relationship) => existing.filter((d) => d.relationship === r).length;
  const out: EligibilityBreach[] = [];
  if (dependent.relationship === 'CHILD' && count('CHILD') + 1 > rules.maxChildren) {
    out.push(breach('MAX_CHILDREN', `relationship: the policy covers at most ${rules.maxChildren} children`));
  }
  const other =
    dependent.relationship === 'PARENT'
      ? 'PARENT_IN_LAW'
      : dependent.relationship === 'PARENT_IN_LAW'
        ? 'PARENT'
        : null;
  if (other && !rules.parentsWithParentsInLaw && count(other) > 0) {
    out.push(
      breach(
        'PARENTS_AND_PARENTS_IN_LAW',
        'relationship: the policy covers parents or parents-in-law, not both',
      ),
    );
  }
  return out;
}

const breach = (rule: EligibilityRuleCode, message: string): EligibilityBreach => ({ rule, message });
