import type { EligibilityBreach } from '../dependents/eligibility.js';
import type { Slab } from '../premium.js';
import type { CoverageType, EndorsementType, PolicyStatus, Relationship } from '../enums.js';
import {
  additionPremium,
  amountAtLeast,
  deletionRefund,
  findSlab,
  inclusiveDays,
  modificationPremium,
  normaliseAmount,
  toPaise,
} from '../premium.js';
import { daysBetween } from '../dates.js';
import { routeEndorsement, type RoutablePolicy } from './routing.js';

/** A create request after its shape was checked (api/schemas/endorsements.ts). */
export interface EndorsementRequest {
  employeeId: string;
  policyId?: string | undefined;
  type: EndorsementType;
  coverageStartDate: string;
  coverageEndDate: string;
  /** Exact decimal; ADDITION (optional, default slab) and MODIFICATION (required) only. */
  sumInsured?: string | undefined;
  /** A dependent joining a covered employee (D16): the endorsement is for that person only. */
  dependentId?: string | undefined;
}

/** Why D7 refuses an endorsement synchronously; the API maps each code to its HTTP answer. */
export type RefusalCode =
  | 'EMPLOYEE_NOT_FOUND'
  | 'DEPENDENT_NOT_FOUND'
  | 'POLICY_NOT_FOUND'
  | 'INVALID'
  | 'INELIGIBLE'
  | 'IN_PROGRESS'
  | 'ALREADY_COVERED'
  | 'NOT_COVERED'
  /** D17: no approved DELETION whose ended cover a REINSTATEMENT could restore. */
  | 'NOT_REINSTATABLE'
  /** D17: the DELETION's cover ended longer ago than the reinstatement window. */
  | 'REINSTATEMENT_WINDOW_CLOSED';

export class EndorsementRefused extends Error {
  constructor(
    readonly code: RefusalCode,
    readonly detail = '',
    /** INELIGIBLE: the dependent's breaches of the policy's eligibility rules (D16). */
    readonly breaches: readonly EligibilityBreach[] = [],
  ) {
    super(`${code}${detail ? `: ${detail}` : ''}`);
  }
}

/** The stored row the workflow start needs: ids only. */
/** The codes an operator knows an endorsement by: never names or other personal data. */
export interface EndorsementCodes {
  policyNumber: string;
  insurerCode: string | null;
  /** The client's own employee identifier (`employee_id` in the spec's create). */
  employeeCode: string;
}

export interface CreatedEndorsement {
  id: string;
  clientId: string;
  policyId: string;
  employeeId: string;
  type: EndorsementType;
  /** Policy number, insurer and employee code when the create read them (the Web UI's summary). */
  codes?: EndorsementCodes;
  /** The census batch that created it (D16), for its workflow's BatchId search attribute. */
  batchId?: string;
}

/** Relationships a policy's coverage_type covers besides the employee (P: parents only). */
export function coveredRelationships(coverageType: CoverageType): Relationship[] {
  switch (coverageType) {
    case 'COVERAGE_TYPE_E':
      return [];
    case 'COVERAGE_TYPE_ES':
      return ['SPOUSE'];
    case 'COVERAGE_TYPE_ESC':
      return ['SPOUSE', 'CHILD'];
    case 'COVERAGE_TYPE_ESCP':
      return ['SPOUSE', 'CHILD', 'PARENT', 'PARENT_IN_LAW'];
    case 'COVERAGE_TYPE_P':
      return ['PARENT', 'PARENT_IN_LAW'];
  }
}

/**
 * What the read before a create brings, one row per candidate policy (snake_case as stored): the
 * employee's cover on it and any open endorsement. A row with a null id: the employee exists but
 * has no candidate policy.
 */
export interface CandidatePolicy {
  id: string;
  policy_number: string;
  status: PolicyStatus;
  start_date: string;
  end_date: string;
  slabs: Slab[];
  default_sum_insured: string;
  employee_active: boolean;
  open_endorsement_id: string | null;
  member_sum_insured: string | null;
  member_start: string | null;
  member_end: string | null;
  /** Codes for the Web UI's summary (ids and codes only). */
  employee_code?: string;
  insurer_code?: string | null;
}

interface MemberRow {
  sum_insured: string | null;
  coverage_start_date: string;
  coverage_end_date: string;
}

/** The accepted endorsement's policy and price (D7), ready to be stored as PENDING. */
export interface EndorsementDecision {
  policyId: string;
  sumInsured: string;
  premiumImpact: string;
  /**
   * The days the premium is pro-rated for: the covered days (both ends included) of an ADDITION or
   * a MODIFICATION, the unused days after the last covered day of a DELETION, the restored days (both
   * ends included) of a REINSTATEMENT.
   */
  proRataDays: number;
  /**
   * The period a REINSTATEMENT restores (D17), which the decision implies and the request does not
   * name; the request's dates otherwise.
   */
  coverageStartDate?: string;
  coverageEndDate?: string;
}

/**
 * Checks everything D7 lists, in its order, against the candidates read for the request (no rows:
 * no such employee), and prices the endorsement. Throws EndorsementRefused with D7's reason.
 */
export function decideEndorsement(
  rows: readonly CandidatePolicy[],
  req: EndorsementRequest,
): EndorsementDecision {
  if (rows.length === 0) throw new EndorsementRefused('EMPLOYEE_NOT_FOUND');
  const policy = choosePolicy(
    rows.filter((r) => r.id !== null),
    req,
  );
  checkCoveragePeriod(policy, req);
  const requestedSlab = req.sumInsured === undefined ? undefined : findSlab(policy.slabs, req.sumInsured);
  if (req.sumInsured !== undefined && req.type !== 'ENDORSEMENT_TYPE_DELETION' && !requestedSlab) {
    throw new EndorsementRefused(
      'INVALID',
      `sum_insured: must be one of the policy's slabs: ${slabList(policy.slabs)}`,
    );
  }
  if (policy.open_endorsement_id) throw endorsementInProgress(policy.open_endorsement_id);
  return { policyId: policy.id, ...price(req, policy, memberOf(policy), requestedSlab) };
}

/** D7: the requested policy (rows hold it alone) or the routed one; refuses as D7 says. */
export function choosePolicy(rows: CandidatePolicy[], req: EndorsementRequest): CandidatePolicy {
  if (req.policyId) {
    if (!rows[0]) throw new EndorsementRefused('POLICY_NOT_FOUND');
    return rows[0];
  }
  const routed = routeEndorsement(req.type, req.coverageStartDate, rows.map(toRoutable));
  if (routed.ok) return rows.find((r) => r.id === routed.policyId)!;
  if (routed.reason === 'SEVERAL_POLICIES') {
    throw new EndorsementRefused(
      'INVALID',
      'policy_id: is required because the employee is covered by several active policies',
    );
  }
  throw new EndorsementRefused('POLICY_NOT_FOUND');
}

const toRoutable = (r: CandidatePolicy): RoutablePolicy => ({
  id: r.id,
  policyNumber: r.policy_number,
  status: r.status,
  startDate: r.start_date,
  endDate: r.end_date,
  employeeActive: r.employee_active,
});

const memberOf = (r: CandidatePolicy): MemberRow | undefined =>
  r.employee_active
    ? {
        sum_insured: r.member_sum_insured,
        coverage_start_date: r.member_start!,
        coverage_end_date: r.member_end!,
      }
    : undefined;

const slabList = (slabs: readonly Slab[]): string =>
  slabs.map((s) => normaliseAmount(s.sum_insured)).join(', ');

/** IN_PROGRESS, naming the open endorsement when it is known. */
export const endorsementInProgress = (openId: string | undefined) =>
  new EndorsementRefused(
    'IN_PROGRESS',
    openId ? `endorsement ${openId} is still open for this employee and policy` : '',
  );

type Priced = Omit<EndorsementDecision, 'policyId'>;

/** The type-specific rules (covered or not, dates against the cover) and the premium (D7). */
function price(
  req: EndorsementRequest,
  policy: CandidatePolicy,
  member: MemberRow | undefined,
  slab?: Slab,
): Priced {
  const defaultSlab = findSlab(policy.slabs, policy.default_sum_insured);
  if (req.type === 'ENDORSEMENT_TYPE_ADDITION') {
    if (member)
      throw new EndorsementRefused('ALREADY_COVERED', 'the employee is already active on this policy');
    const chosen = slab ?? defaultSlab;
    if (!chosen)
      throw new EndorsementRefused(
        'INVALID',
        `sum_insured: must be one of the policy's slabs: ${slabList(policy.slabs)}`,
      );
    return {
      sumInsured: normaliseAmount(chosen.sum_insured),
      premiumImpact: additionPremium(
        { startDate: policy.start_date, endDate: policy.end_date },
        chosen.annual_premium,
        req.coverageStartDate,
        req.coverageEndDate,
      ),
      proRataDays: inclusiveDays(req.coverageStartDate, req.coverageEndDate),
    };
  }
  if (!member) throw new EndorsementRefused('NOT_COVERED', 'the employee is not active on this policy');
  const period = { startDate: policy.start_date, endDate: policy.end_date };
  const current =
    (member.sum_insured ? findSlab(policy.slabs, member.sum_insured) : undefined) ?? defaultSlab;
  if (!current)
    throw new EndorsementRefused('INVALID', 'sum_insured: the member has no premium slab on this policy');
  if (req.type === 'ENDORSEMENT_TYPE_DELETION') {
    if (req.coverageEndDate < member.coverage_start_date || req.coverageEndDate > member.coverage_end_date) {
      throw new EndorsementRefused(
        'INVALID',
        `coverage_end_date: must lie within the member's coverage ${member.coverage_start_date} to ${member.coverage_end_date}`,
      );
    }
    return {
      sumInsured: normaliseAmount(member.sum_insured ?? current.sum_insured),
      premiumImpact: deletionRefund(
        period,
        current.annual_premium,
        req.coverageEndDate,
        member.coverage_end_date,
      ),
      proRataDays: Math.max(0, daysBetween(req.coverageEndDate, member.coverage_end_date)),
    };
  }
  if (!slab) throw new EndorsementRefused('INVALID', 'sum_insured: is required for a MODIFICATION');
  if (req.coverageStartDate < member.coverage_start_date || req.coverageEndDate > member.coverage_end_date) {
    throw new EndorsementRefused(
      'INVALID',
      `coverage_start_date: the period must lie within the member's coverage ${member.coverage_start_date} to ${member.coverage_end_date}`,
    );
  }
  if (normaliseAmount(slab.sum_insured) === normaliseAmount(member.sum_insured ?? current.sum_insured)) {
    throw new EndorsementRefused('INVALID', "sum_insured: must differ from the member's current sum insured");
  }
  return {
    sumInsured: normaliseAmount(slab.sum_insured),
    premiumImpact: modificationPremium(
      period,
      current.annual_premium,
      slab.annual_premium,
      req.coverageStartDate,
      req.coverageEndDate,
    ),
    proRataDays: inclusiveDays(req.coverageStartDate, req.coverageEndDate),
  };
}

/** What the automated review (D7) looks at once the workflow runs. */
export interface ReviewSubject {
  type: EndorsementType;
  premium_impact: string;
  employee_status: string;
  cd_balance: string;
}

/**
 * D7 automated review: the employee is ACTIVE (for an addition, and a reinstatement, D17) and, for runs started before the CD
 * account's holds (`cdHold` false), the policy's CD balance covers the premium; with holds an
 * endorsement the balance cannot cover waits for funds instead. Returns the rejection reason
 * (starting `Review:`), or null when the review passes.
 */
export function reviewRejection(e: ReviewSubject, cdHold = false): string | null {
  const enrols = e.type === 'ENDORSEMENT_TYPE_ADDITION' || e.type === 'ENDORSEMENT_TYPE_REINSTATEMENT';
  if (enrols && e.employee_status !== 'ACTIVE') {
    return `Review: the employee is not active (${e.employee_status})`;
  }
  if (!cdHold && toPaise(e.premium_impact) > 0n && !amountAtLeast(e.cd_balance, e.premium_impact)) {
    return `Review: the policy's CD balance ${e.cd_balance} does not cover the premium ${e.premium_impact}`;
  }
  return null;
}

/** D7: the coverage period runs forwards and lies inside the policy's period. */
export function checkCoveragePeriod(
  policy: { start_date: string; end_date: string },
  req: Pick<EndorsementRequest, 'coverageStartDate' | 'coverageEndDate'>,
): void {
  if (req.coverageStartDate >= req.coverageEndDate) {
    throw new EndorsementRefused('INVALID', 'coverage_end_date: must be after coverage_start_date');
  }
  if (req.coverageStartDate < policy.start_date || req.coverageEndDate > policy.end_date) {
    throw new EndorsementRefused(
      'INVALID',
      `coverage_start_date: the coverage period must lie within the policy period ${policy.start_date} to ${policy.end_date}`,
    );
  }
}
