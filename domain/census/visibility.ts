import type { CensusFact, RowError } from './rows.js';
import type { PlannedEndorsement, PlanTotals, RowPlan } from './plan.js';
import {
  CD_READ_SCOPES,
  COVERAGE_READ_SCOPES,
  EMPLOYEE_READ_SCOPES,
  hasAnyScope,
  type ClientScope,
} from '../scopes.js';

/**
 * What a census report (a dry run, a batch's rows and totals) may show to one token. A census is
 * sent under the endorsement scope, which reads neither the CD account nor who is covered where nor
 * the stored employees; the report shows those only to a token that could read them through their
 * own routes, and otherwise says of a row only whether it would be accepted or refused.
 */
export interface CensusView {
  /** CD figures: the available balance, holds, what is left after, shortfalls (CD_READ_SCOPES). */
  cd: boolean;
  /** Whose cover a row ends or changes, on which policy, and open endorsements (COVERAGE_READ_SCOPES). */
  coverage: boolean;
  /** Stored employees and families: another's e-mail, a family's members (EMPLOYEE_READ_SCOPES). */
  employees: boolean;
}

export const FULL_VIEW: CensusView = { cd: true, coverage: true, employees: true };

export function censusViewOf(scopes: readonly string[]): CensusView {
  return {
    cd: hasAnyScope(scopes, CD_READ_SCOPES),
    coverage: hasAnyScope(scopes, COVERAGE_READ_SCOPES),
    employees: hasAnyScope(scopes, EMPLOYEE_READ_SCOPES),
  };
}

const READS: Record<CensusFact, readonly ClientScope[]> = {
  coverage: COVERAGE_READ_SCOPES,
  employees: EMPLOYEE_READ_SCOPES,
};

/** The reason a refused row shows in place of one the token may not read. */
export const withheldReason = (fact: CensusFact): string =>
  `would be refused; the reason needs one of: ${READS[fact].join(', ')}`;

const shows = (view: CensusView, fact: CensusFact | undefined) => !fact || view[fact];

/**
 * The row as the view may see it: a reason telling a stored fact the token cannot read becomes one
 * `row` error saying which scopes show it; an accepted row's DELETIONs and MODIFICATIONs (whose
 * policy and dates come from the employee's cover) and an exit's DELETIONs are left out without
 * the coverage scopes, and whether the row changes a stored employee's details without the
 * employee scopes, and each endorsement's CD forecast without the CD scopes. The status (accepted
 * or refused) always shows.
 */
export function visibleRowPlan(plan: RowPlan, view: CensusView): RowPlan {
  // A token that reads everything sees an accepted row as planned (a dry run's usual ten thousand).
  if (plan.errors.length === 0 && view.cd && view.coverage && view.employees) return plan;
  const errors: RowError[] = [];
  for (const e of plan.errors) {
    const shown: RowError = shows(view, e.reveals) ? e : { field: 'row', reason: withheldReason(e.reveals!) };
    if (!errors.some((o) => o.field === shown.field && o.reason === shown.reason)) errors.push(shown);
  }
  const shown =
    plan.endorsement && !view.coverage && plan.endorsement.type !== 'ENDORSEMENT_TYPE_ADDITION'
      ? null
      : plan.endorsement;
  const deletions = view.coverage ? (plan.exit?.deletions ?? []) : [];
  return {
    ...plan,
    errors,
    updates_employee: view.employees ? plan.updates_employee : false,
    endorsement: shown && withoutCd(shown, view),
    exit: plan.exit && { ...plan.exit, deletions: deletions.map((d) => withoutCd(d, view)) },
  };
}

/** An endorsement's CD forecast only with the CD scopes. */
function withoutCd(e: PlannedEndorsement, view: CensusView): PlannedEndorsement {
  if (view.cd || !e.cd) return e;
  const { cd: _hidden, ...rest } = e;
  return rest;
}

/** The totals as the view may see them: the CD figures only with the CD scopes (null otherwise). */
export function visibleTotals(
  totals: PlanTotals,
  view: CensusView,
): Omit<PlanTotals, 'cd'> & {
  cd: PlanTotals['cd'] | null;
} {
  return { ...totals, cd: view.cd ? totals.cd : null };
}
