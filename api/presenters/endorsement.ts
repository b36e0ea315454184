import type { EndorsementStatus, EndorsementType } from '../../domain/enums.js';

/** Columns of spec 2.5 as stored; dates as text so no time zone ever shifts them. */
export const ENDORSEMENT_COLUMNS = `e.id, e.client_id, e.policy_id, e.employee_id, e.type, e.status,
  e.coverage_start_date::text as coverage_start_date, e.coverage_end_date::text as coverage_end_date,
  e.premium_impact::text as premium_impact, e.sum_insured::text as sum_insured, e.rejection_reason`;

export interface EndorsementRow {
  id: string;
  client_id: string;
  policy_id: string;
  employee_id: string;
  type: EndorsementType;
  status: EndorsementStatus;
  coverage_start_date: string;
  coverage_end_date: string;
  premium_impact: string;
  sum_insured: string;
  rejection_reason: string | null;
}

/** The Endorsement object of spec 2.5; money as JSON numbers, rejection_reason only when REJECTED. */
export function presentEndorsement(row: EndorsementRow) {
  return {
    id: row.id,
    client_id: row.client_id,
    policy_id: row.policy_id,
    employee_id: row.employee_id,
    type: row.type,
    status: row.status,
    coverage_start_date: row.coverage_start_date,
    coverage_end_date: row.coverage_end_date,
    premium_impact: Number(row.premium_impact),
    sum_insured: Number(row.sum_insured),
    rejection_reason: row.status === 'ENDORSEMENT_STATUS_REJECTED' ? row.rejection_reason : null,
  };
}
