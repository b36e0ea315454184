import { z } from 'zod';
import type { EndorsementRow } from '../../data/endorsements.js';
import { awaitingFundsReason } from '../../domain/cd-account.js';
import { ENDORSEMENT_STATUSES, ENDORSEMENT_TYPES } from '../../domain/enums.js';
import { dateOut, idOut, moneyOut, outcome } from '../schemas/responses.js';

/** Spec 2.5. */
export const endorsementSchema = z
  .object({
    id: idOut('end_2p7x9k4m6b'),
    client_id: z.string(),
    policy_id: z.string(),
    employee_id: z.string(),
    dependent_id: z.string().nullable().meta({
      description:
        'D16: the one dependent this endorsement adds or removes; null when it is the employee (with the covered family)',
    }),
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
    awaiting_funds_reason: z
      .string()
      .nullable()
      .meta({
        description:
          "Set only while the endorsement waits in PENDING for the policy's CD balance to cover it " +
          '(it goes on by itself when a top-up does)',
      }),
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
    dependent_id: row.dependent_id,
    type: row.type,
    status: row.status,
    coverage_start_date: row.coverage_start_date,
    coverage_end_date: row.coverage_end_date,
    premium_impact: Number(row.premium_impact),
    sum_insured: Number(row.sum_insured),
    rejection_reason: row.status === 'ENDORSEMENT_STATUS_REJECTED' ? row.rejection_reason : null,
    awaiting_funds_reason:
      row.awaiting_funds_available === null
        ? null
        : awaitingFundsReason(row.awaiting_funds_available, row.premium_impact),
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
