import { z } from 'zod';
import { DROP_REASONS, RENEWAL_STATUSES } from '../../domain/policy-year/renewal.js';
import { RELATIONSHIPS } from '../../domain/enums.js';
import type { RenewalView } from '../../usecases/policy-year/renewals.js';
import { dateOut, idOut, moneyOut, outcome } from '../schemas/responses.js';
import { slabAmount } from './policy.js';

const money = (amount: string): number => Number(amount);

const relationship = z.enum(['SELF', ...RELATIONSHIPS]);

const carriedSchema = z.object({
  member_id: idOut('mem_3m1k9q2x'),
  employee_id: idOut('emp_7h2k4m9q1x'),
  dependent_id: z.string().nullable(),
  relationship,
  uhid: z.string().nullable(),
  sum_insured: moneyOut,
  next_sum_insured: moneyOut,
  annual_premium_before: moneyOut,
  annual_premium_after: moneyOut,
});

const droppedSchema = z.object({
  member_id: idOut('mem_3m1k9q2x'),
  employee_id: idOut('emp_7h2k4m9q1x'),
  dependent_id: z.string().nullable(),
  relationship,
  reason: z.enum(DROP_REASONS),
  detail: z.string().meta({ example: 'over the child age limit of 25 on 2027-04-01' }),
});

/** D17: a policy term's renewal as HR reviews it, computed from the current members at each read. */
export const renewalSchema = z
  .object({
    id: idOut('rnw_5d8q2m4k1x'),
    policy_id: idOut('pol_8kq2n4x7w1'),
    status: z.enum(RENEWAL_STATUSES),
    current_term: z.object({ start_date: dateOut, end_date: dateOut }),
    next_term: z.object({ start_date: dateOut, end_date: dateOut }),
    auto_confirm_date: dateOut.meta({ description: 'Confirms itself on this day unless declined' }),
    quote_loaded: z
      .boolean()
      .meta({ description: "False: the current terms carry over (no insurer's quote)" }),
    sum_insured: z.array(z.string().meta({ example: '300000' })).meta({ description: "Next term's slabs" }),
    members_carried: z.array(carriedSchema),
    members_dropped: z.array(droppedSchema),
    premium_before: moneyOut.meta({ description: 'Annual premium of the current members at current rates' }),
    premium_after: moneyOut.meta({
      description: "Annual premium of the carried members at the next term's rates",
    }),
    cd_balance: moneyOut.meta({ description: 'Available CD balance, carried to the next term' }),
    cd_top_up_needed: moneyOut.meta({ description: 'What the CD account lacks for the next term (0: none)' }),
    decided_by: z.string().nullable(),
    decided_at: z.string().nullable(),
    submitted_at: z.string().nullable().meta({ description: 'When the insurer received the renewal' }),
    new_policy_id: z.string().nullable(),
  })
  .meta({ id: 'PolicyRenewal', description: "A policy term's renewal (D17)." });

export const renewalPayload = z.object({
  renewal: renewalSchema,
  ...outcome('Renewal fetched successfully'),
});

export function presentRenewal(v: RenewalView): z.infer<typeof renewalSchema> {
  const who = (m: RenewalView['draft']['carried'][number] | RenewalView['draft']['dropped'][number]) => ({
    member_id: m.memberId,
    employee_id: m.employeeId,
    dependent_id: m.dependentId,
    relationship: m.relationship ?? ('SELF' as const),
  });
  const available = money(v.policy.cd_balance) - money(v.policy.cd_held);
  return {
    id: v.renewal.id,
    policy_id: v.policy.id,
    status: v.renewal.status,
    current_term: { start_date: v.policy.start_date, end_date: v.policy.end_date },
    next_term: { start_date: v.draft.terms.term.startDate, end_date: v.draft.terms.term.endDate },
    auto_confirm_date: v.autoConfirmDate,
    quote_loaded: v.renewal.quote !== null,
    sum_insured: v.draft.terms.slabs.map((s) => slabAmount(s.sum_insured)),
    members_carried: v.draft.carried.map((m) => ({
      ...who(m),
      uhid: m.uhid,
      sum_insured: money(m.sumInsured ?? '0'),
      next_sum_insured: money(m.nextSumInsured),
      annual_premium_before: money(m.annualPremiumBefore),
      annual_premium_after: money(m.annualPremiumAfter),
    })),
    members_dropped: v.draft.dropped.map((m) => ({ ...who(m), reason: m.reason, detail: m.detail })),
    premium_before: money(v.draft.premiumBefore),
    premium_after: money(v.draft.premiumAfter),
    cd_balance: Number(available.toFixed(2)),
    cd_top_up_needed: money(v.draft.cdTopUpNeeded),
    decided_by: v.renewal.decided_by,
    decided_at: v.renewal.decided_at,
    submitted_at: v.renewal.submitted_at,
    new_policy_id: v.renewal.new_policy_id,
  };
}
