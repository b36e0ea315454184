import { z } from 'zod';
import type { EndorsementRow } from '../../data/endorsements/endorsements.js';
import { awaitingFundsReason, rupees } from '../../domain/cd-account/account.js';
import type { EndorsementRequest } from '../../domain/endorsements/endorsement.js';
import type { PricedEndorsement } from '../../usecases/endorsements/endorsements.js';
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

/** D17: what a create would do, answered by `?dry_run=true` (nothing written). */
export const endorsementDryRunPayload = z
  .object({
    dry_run: z.literal(true),
    endorsement: z.object({
      type: z.enum(ENDORSEMENT_TYPES),
      employee_id: z.string(),
      dependent_id: z.string().nullable(),
      policy_id: idOut('pol_8c1d2e3f4a5b6c7d8e9f0a').meta({ description: 'The policy it routes to (D7)' }),
      policy_number: z.string(),
      coverage_start_date: dateOut,
      coverage_end_date: dateOut,
      sum_insured: moneyOut,
      premium_impact: moneyOut.meta({
        description:
          'INR, pro-rata by days (D7): an ADDITION, a REINSTATEMENT or an increase positive, a DELETION a negative refund',
      }),
      pro_rata_days: z.number().int().meta({
        description:
          'The days priced: the covered days (both ends included) of an ADDITION or MODIFICATION, the unused days after a DELETION, the restored days of a REINSTATEMENT',
      }),
    }),
    cd: z
      .object({
        available: moneyOut.meta({
          description: "The policy's available CD balance now (balance less holds)",
        }),
        hold: moneyOut.meta({ description: 'What the endorsement would hold at review (0 for a refund)' }),
        available_after: moneyOut.meta({ description: 'The available balance once the hold is placed' }),
        waits_for_funds: z.boolean().meta({
          description:
            'Cover would wait for a top-up: the balance does not cover the hold, or other endorsements wait first',
        }),
      })
      .nullable()
      .meta({
        description:
          'A forecast of the CD account at review; null for a token without a scope that reads the CD account (policy.get, policy.all)',
      }),
    ...outcome('Endorsement checked; nothing was written'),
  })
  .meta({ id: 'EndorsementDryRunPayload' });

/** The dry run's answer; the CD forecast only when `showCd` (the token reads the CD account). */
export function presentDryRun(
  req: EndorsementRequest,
  priced: PricedEndorsement,
  showCd: boolean,
): z.infer<typeof endorsementDryRunPayload> {
  const { decision, cd } = priced;
  return {
    dry_run: true,
    endorsement: {
      type: req.type,
      employee_id: req.employeeId,
      dependent_id: req.dependentId ?? null,
      policy_id: decision.policyId,
      policy_number: priced.policyNumber,
      coverage_start_date: decision.coverageStartDate ?? req.coverageStartDate,
      coverage_end_date: decision.coverageEndDate ?? req.coverageEndDate,
      sum_insured: Number(decision.sumInsured),
      premium_impact: Number(decision.premiumImpact),
      pro_rata_days: decision.proRataDays,
    },
    cd: showCd
      ? {
          available: Number(rupees(cd.available)),
          hold: Number(rupees(cd.hold)),
          available_after: Number(rupees(cd.availableAfter)),
          waits_for_funds: cd.waitsForFunds,
        }
      : null,
    message: 'Endorsement checked; nothing was written',
    success: true,
  };
}

/** Spec 4.10, and the cancel's answer (D7). */
export const endorsementPayload = z
  .object({ endorsement: endorsementSchema, ...outcome('Endorsement fetched successfully') })
  .meta({ id: 'EndorsementPayload' });
