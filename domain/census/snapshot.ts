import type { EligibilityRules } from '../dependents/eligibility.js';
import type {
  CoverageType,
  EmployeeStatus,
  CensusEndorsementType,
  ExitMode,
  Gender,
  Relationship,
} from '../enums.js';
import type { Slab } from '../premium.js';

/**
 * What a census plan reads (the client's policies and the employees the census names, as
 * data/census/batches.ts reads them) and what it would write (planned endorsements): the types the plan,
 * its employee rows and its dependent rows share.
 */
/** One of the client's ACTIVE policies as the plan needs it, with its available CD balance. */
export interface PlanPolicy {
  id: string;
  policy_number: string;
  start_date: string;
  end_date: string;
  slabs: Slab[];
  default_sum_insured: string;
  insurer_code: string | null;
  cd_available: string;
  /** Endorsements of the policy already wait for funds (a new hold queues behind them). */
  cd_waiting?: boolean;
  coverage_type: CoverageType;
  /** The policy's overrides of D16's eligibility defaults. */
  eligibility: Partial<EligibilityRules>;
}

/** An existing employee the census names (by code, or by the e-mail a new row would take). */
export interface PlanEmployee {
  id: string;
  employee_code: string;
  email_key: string;
  /** Their own active member rows (D10, on today). */
  cover: { policy_id: string; sum_insured: string | null; start: string; end: string }[];
  /** Their open endorsements (PENDING or SENT_TO_INSURER). */
  open: { policy_id: string; endorsement_id: string }[];
  /** Their dependents, each with its own cover (absent: none, or not read: only a dependent's row looks at them). */
  dependents?: PlanDependent[];
  /** Their stored details, which a row restating them differently updates (absent: no row restates them). */
  details?: StoredDetails;
}

/** A dependent of an employee the census names, with its own cover on today (D10). */
export interface PlanDependent {
  id: string;
  relationship: Relationship;
  name: string;
  date_of_birth: string;
  event_date: string | null;
  cover: { policy_id: string; sum_insured: string | null; start: string; end: string }[];
}

/** An existing employee's stored details, as a census row may restate them (personal data). */
export interface StoredDetails {
  name: string;
  email: string;
  phone_number: string;
  date_of_birth: string;
  gender: Gender;
  status: EmployeeStatus;
}

export interface CensusSnapshot {
  policies: PlanPolicy[];
  employees: PlanEmployee[];
  /** The client's exit mode (D16; absent: automatic). */
  exit_mode?: ExitMode;
}

/** What committing one row would do; the same for the dry run and the commit of the same file. */
export interface PlannedEndorsement {
  type: CensusEndorsementType;
  policy_id: string;
  coverage_start_date: string;
  coverage_end_date: string;
  sum_insured: string;
  premium_impact: string;
  /** The days priced (EndorsementDecision.proRataDays); absent from plans stored before it. */
  pro_rata_days?: number;
  /** The CD forecast at its review (forecastCensusCd), in file order; absent until forecast. */
  cd?: PlannedCd;
}

/** What an endorsement of the census would do to its policy's CD account, rows before it counted. */
export interface PlannedCd {
  hold: string;
  available_after: string;
  waits_for_funds: boolean;
}
