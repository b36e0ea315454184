import type { CensusFact, RowError } from './rows.js';
import type { PlannedEndorsement } from './snapshot.js';
import { EndorsementRefused, type EndorsementDecision } from '../endorsements/endorsement.js';
import type { CensusEndorsementType, EndorsementType } from '../enums.js';

/**
 * The one way a census row's endorsement is planned (employee rows and dependent rows alike): D7's
 * decision for the row's dates as the planned endorsement, or its refusal as the row's error.
 */
export function planEndorsement(
  type: CensusEndorsementType,
  decide: () => { decision: EndorsementDecision; dates: { start: string; end: string } },
): { endorsement: PlannedEndorsement; error: null } | { endorsement: null; error: RowError } {
  try {
    const { decision, dates } = decide();
    return {
      endorsement: {
        type,
        policy_id: decision.policyId,
        coverage_start_date: dates.start,
        coverage_end_date: dates.end,
        sum_insured: decision.sumInsured,
        premium_impact: decision.premiumImpact,
        pro_rata_days: decision.proRataDays,
      },
      error: null,
    };
  } catch (err) {
    if (!(err instanceof EndorsementRefused)) throw err;
    return { endorsement: null, error: refusalError(err, type) };
  }
}

/** The D7 refusal as a row error, on the field it is about. */
export function refusalError(err: EndorsementRefused, type: EndorsementType): RowError {
  const field = /^(\w+):/.exec(err.detail)?.[1];
  const known = ['sum_insured', 'policy_id', 'coverage_start_date', 'coverage_end_date'];
  const mapped =
    field === 'sum_insured' || field === 'policy_id'
      ? field
      : field && known.includes(field)
        ? 'effective_date'
        : 'row';
  const reasons: Record<EndorsementRefused['code'], string> = {
    EMPLOYEE_NOT_FOUND: 'no employee has this code',
    POLICY_NOT_FOUND:
      type === 'ENDORSEMENT_TYPE_ADDITION'
        ? 'no active policy of the client fits this row'
        : 'the employee is not covered by an active policy of the client',
    INVALID: err.detail.replace(/^\w+: /, ''),
    // The detail is the whole sentence naming the open one (endorsementInProgress), or empty.
    IN_PROGRESS: err.detail || 'an endorsement is still open for this employee and policy',
    ALREADY_COVERED: 'the employee is already covered by this policy',
    NOT_COVERED: 'the employee is not covered by this policy',
    DEPENDENT_NOT_FOUND: 'no such dependent of this employee',
    INELIGIBLE: err.detail || 'the dependent is not eligible on this policy',
    // A census row never asks for a REINSTATEMENT; listed so every refusal has its words.
    NOT_REINSTATABLE: err.detail,
    REINSTATEMENT_WINDOW_CLOSED: err.detail,
  };
  const onField =
    err.code === 'POLICY_NOT_FOUND'
      ? 'policy_id'
      : err.code === 'EMPLOYEE_NOT_FOUND'
        ? 'employee_code'
        : mapped;
  const reveals: Partial<Record<EndorsementRefused['code'], CensusFact>> = {
    POLICY_NOT_FOUND: type === 'ENDORSEMENT_TYPE_ADDITION' ? undefined : 'coverage',
    IN_PROGRESS: 'coverage',
    ALREADY_COVERED: 'coverage',
    NOT_COVERED: 'coverage',
    DEPENDENT_NOT_FOUND: 'employees',
    INELIGIBLE: 'employees',
  };
  const fact = reveals[err.code];
  return { field: onField, reason: reasons[err.code], ...(fact && { reveals: fact }) };
}
