import {
  eligibilityBreaches,
  eligibilityRules,
  type EligibilityBreach,
  type EligibilityRules,
  type ExistingDependent,
  type JoiningDependent,
} from './eligibility.js';
import {
  checkCoveragePeriod,
  coveredRelationships,
  endorsementInProgress,
  EndorsementRefused,
  type EndorsementDecision,
  type EndorsementRequest,
} from '../endorsements/endorsement.js';
import type { CoverageType, PolicyStatus, Relationship } from '../enums.js';
import { daysBetween } from '../dates.js';
import {
  additionPremium,
  deletionRefund,
  findSlab,
  inclusiveDays,
  normaliseAmount,
  type Slab,
} from '../premium.js';

/**
 * What the read before a dependent's endorsement brings (snake_case as stored), one row per
 * candidate policy: the policy, the employee's and the dependent's cover on it, any open endorsement
 * of the family on it. No rows: no such employee; a null `relationship`: no such dependent of theirs.
 */
export interface DependentCandidate {
  id: string | null;
  policy_number: string;
  status: PolicyStatus;
  start_date: string;
  end_date: string;
  slabs: Slab[];
  coverage_type: CoverageType;
  /** The policy's overrides of D16's defaults (validated at load). */
  eligibility: Partial<EligibilityRules>;
  employee_active: boolean;
  member_sum_insured: string | null;
  member_start: string | null;
  member_end: string | null;
  dependent_active: boolean;
  dependent_end: string | null;
  open_endorsement_id: string | null;
  relationship: Relationship | null;
  date_of_birth: string | null;
  event_date: string | null;
  /** The employee's other dependents (for the family rules). */
  others: ExistingDependent[];
  employee_code?: string;
  insurer_code?: string | null;
}

/** The dependent's breaches of the policy's rules, joining an employee covered on it, on `today`. */
export function dependentBreaches(row: DependentCandidate, today: string): EligibilityBreach[] {
  return eligibilityBreaches({
    rules: eligibilityRules(row.eligibility),
    existing: row.others,
    dependent: {
      relationship: row.relationship!,
      dateOfBirth: row.date_of_birth!,
      eventDate: row.event_date ?? undefined,
    },
    on: today,
    joiningCoveredEmployee: true,
  });
}

/** The breaches as one refusal: 400 naming each rule by its code. */
export const ineligible = (breaches: readonly EligibilityBreach[]) =>
  new EndorsementRefused('INELIGIBLE', breaches.map((b) => `${b.rule}: ${b.message}`).join('; '), breaches);

/**
 * D16: the ADDITION of a dependent joining an employee covered on the policy (one life, the
 * employee's sum insured, inside the employee's cover, the policy's eligibility rules), or the
 * DELETION of a covered dependent (a child ageing out); D7's checks otherwise. Pure.
 */
export function decideDependentEndorsement(
  rows: readonly DependentCandidate[],
  req: EndorsementRequest,
  today: string,
): EndorsementDecision {
  if (rows.length === 0) throw new EndorsementRefused('EMPLOYEE_NOT_FOUND');
  if (rows[0]!.relationship === null) throw new EndorsementRefused('DEPENDENT_NOT_FOUND');
  if (req.type === 'ENDORSEMENT_TYPE_MODIFICATION') {
    throw new EndorsementRefused('INVALID', 'dependent_id: only an ADDITION or a DELETION names a dependent');
  }
  const policy = choosePolicy(
    rows.filter((r) => r.id !== null),
    req,
  );
  checkCoveragePeriod(policy, req);
  if (req.type === 'ENDORSEMENT_TYPE_ADDITION') return addition(policy, req, today);
  return deletion(policy, req);
}

function choosePolicy(rows: DependentCandidate[], req: EndorsementRequest): DependentCandidate {
  if (req.policyId) {
    if (!rows[0]) throw new EndorsementRefused('POLICY_NOT_FOUND');
    return rows[0];
  }
  const fits = rows.filter((r) =>
    req.type === 'ENDORSEMENT_TYPE_ADDITION'
      ? r.employee_active && !r.dependent_active && covers(r, r.relationship!)
      : r.dependent_active,
  );
  if (fits.length > 1) {
    throw new EndorsementRefused('INVALID', 'policy_id: is required because several active policies fit');
  }
  if (!fits[0]) throw new EndorsementRefused('POLICY_NOT_FOUND');
  return fits[0];
}

const covers = (r: DependentCandidate, relationship: Relationship) =>
  coveredRelationships(r.coverage_type).includes(relationship);

function addition(policy: DependentCandidate, req: EndorsementRequest, today: string): EndorsementDecision {
  if (!covers(policy, policy.relationship!)) {
    throw new EndorsementRefused(
      'INVALID',
      "dependent_id: the policy's coverage type does not cover this relationship",
    );
  }
  if (!policy.employee_active) {
    throw new EndorsementRefused(
      'NOT_COVERED',
      "the employee is not active on this policy: dependents join with the employee's ADDITION",
    );
  }
  if (policy.dependent_active)
    throw new EndorsementRefused('ALREADY_COVERED', 'the dependent is already active on this policy');
  if (req.coverageStartDate < policy.member_start! || req.coverageEndDate > policy.member_end!) {
    throw new EndorsementRefused(
      'INVALID',
      `coverage_start_date: a dependent's cover must lie within the employee's ${policy.member_start} to ${policy.member_end}`,
    );
  }
  const slab = memberSlab(policy);
  if (req.sumInsured !== undefined && normaliseAmount(req.sumInsured) !== normaliseAmount(slab.sum_insured)) {
    throw new EndorsementRefused('INVALID', "sum_insured: a dependent shares the employee's sum insured");
  }
  if (policy.open_endorsement_id) throw endorsementInProgress(policy.open_endorsement_id);
  const breaches = dependentBreaches(policy, today);
  if (breaches.length > 0) throw ineligible(breaches);
  return {
    policyId: policy.id!,
    sumInsured: normaliseAmount(slab.sum_insured),
    premiumImpact: additionPremium(
      period(policy),
      slab.annual_premium,
      req.coverageStartDate,
      req.coverageEndDate,
    ),
    proRataDays: inclusiveDays(req.coverageStartDate, req.coverageEndDate),
  };
}

function deletion(policy: DependentCandidate, req: EndorsementRequest): EndorsementDecision {
  if (!policy.dependent_active)
    throw new EndorsementRefused('NOT_COVERED', 'the dependent is not active on this policy');
  if (req.coverageEndDate > policy.dependent_end!) {
    throw new EndorsementRefused(
      'INVALID',
      `coverage_end_date: must not be after the dependent's coverage end ${policy.dependent_end}`,
    );
  }
  if (policy.open_endorsement_id) throw endorsementInProgress(policy.open_endorsement_id);
  const slab = memberSlab(policy);
  return {
    policyId: policy.id!,
    sumInsured: normaliseAmount(slab.sum_insured),
    premiumImpact: deletionRefund(
      period(policy),
      slab.annual_premium,
      req.coverageEndDate,
      policy.dependent_end!,
    ),
    proRataDays: Math.max(0, daysBetween(req.coverageEndDate, policy.dependent_end!)),
  };
}

const period = (p: DependentCandidate) => ({ startDate: p.start_date, endDate: p.end_date });

/** One life at the employee's slab (a family shares the employee's sum insured). */
function memberSlab(policy: DependentCandidate): Slab {
  const slab = policy.member_sum_insured ? findSlab(policy.slabs, policy.member_sum_insured) : undefined;
  if (!slab)
    throw new EndorsementRefused('INVALID', 'sum_insured: the employee has no premium slab on this policy');
  return slab;
}

/** A policy the employee is covered on today, as a joining dependent's check needs it. */
export interface CoveringPolicy {
  id: string;
  coverage_type: CoverageType;
  eligibility: Partial<EligibilityRules>;
  member_start: string;
  member_end: string;
}

/** The dependent joins every policy covering the employee whose coverage type covers its relationship. */
export const policiesToJoin = (policies: readonly CoveringPolicy[], relationship: Relationship) =>
  policies.filter((p) => coveredRelationships(p.coverage_type).includes(relationship));

/**
 * The policies covering the employee that the dependent does not join, each with why: its coverage
 * type leaves that relationship out (an employee-and-spouse policy and a child). Answered beside the
 * ADDITIONs, so an add that starts none says so instead of a bare empty list.
 */
export const policiesNotJoined = (
  policies: readonly CoveringPolicy[],
  relationship: Relationship,
): { policyId: string; reason: string }[] =>
  policies
    .filter((p) => !coveredRelationships(p.coverage_type).includes(relationship))
    .map((p) => ({
      policyId: p.id,
      reason: `the policy's coverage type ${p.coverage_type} does not cover a ${relationship}: no endorsement`,
    }));

/**
 * Every breach of the rules of the policies it would join, each rule once (D16), for a dependent
 * added to a covered employee; `existing` leaves the person itself out (a repeated add).
 */
export function joiningBreaches(
  policies: readonly CoveringPolicy[],
  existing: readonly ExistingDependent[],
  dependent: JoiningDependent,
  today: string,
): EligibilityBreach[] {
  const all = policiesToJoin(policies, dependent.relationship).flatMap((p) =>
    eligibilityBreaches({
      rules: eligibilityRules(p.eligibility),
      existing,
      dependent,
      on: today,
      joiningCoveredEmployee: true,
    }),
  );
  return all.filter((b, i) => all.findIndex((o) => o.message === b.message) === i);
}

/**
 * The cover of a dependent joining on `today`: from its life event (a newborn from birth, a spouse
 * from the marriage; others from today), never before the employee's cover, to the employee's end.
 */
export function joiningCover(
  policy: CoveringPolicy,
  dependent: JoiningDependent,
  today: string,
): { start: string; end: string } {
  const event = dependent.eventDate ?? (dependent.relationship === 'CHILD' ? dependent.dateOfBirth : today);
  return { start: event > policy.member_start ? event : policy.member_start, end: policy.member_end };
}
