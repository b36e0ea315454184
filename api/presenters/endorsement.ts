import { z } from 'zod';
import {
  ENDORSEMENT_STATUSES,
  ENDORSEMENT_TYPES,
  type EndorsementStatus,
  type EndorsementType,
} from '../../domain/enums.js';
import { dateOut, idOut, moneyOut, outcome } from '../schemas/responses.js';

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

/** Spec 2.5. */
export const endorsementSchema = z
  .object({
    id: idOut('end_2p7x9k4m6b'),
    client_id: z.string(),
    policy_id: z.string(),
    employee_id: z.string(),
    type: z.enum(ENDORSEMENT_TYPES),
    status: z.enum(ENDORSEMENT_STATUSES),
    coverage_start_date: dateOut,
    coverage_end_date: dateOut,
    premium_impact: moneyOut.meta({
      description: 'INR; positive for an ADDITION, a negative refund for a DELETION',
    }),
    sum_insured: moneyOut,
    rejection_reason: z
      .string()
      .nullable()
      .meta({ description: 'Set only when status is ENDORSEMENT_STATUS_REJECTED' }),
  })
  .meta({ id: 'Endorsement', description: 'An endorsement (spec 2.5); statuses per spec 3.1 and D7.' });
export type EndorsementOut = z.infer<typeof endorsementSchema>;

/** The Endorsement object of spec 2.5; money as JSON numbers, rejection_reason only when REJECTED. */
export function presentEndorsement(row: EndorsementRow): EndorsementOut {
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

/** Spec 4.9: the workflow started; read the outcome with Get Endorsement. */
export const createEndorsementPayload = z
  .object({ endorsement_id: idOut('end_2p7x9k4m6b'), ...outcome('Endorsement created successfully') })
  .meta({ id: 'CreateEndorsementPayload' });

/** Spec 4.10, and the cancel's answer (D7). */
export const endorsementPayload = z
  .object({ endorsement: endorsementSchema, ...outcome('Endorsement fetched successfully') })
  .meta({ id: 'EndorsementPayload' });
