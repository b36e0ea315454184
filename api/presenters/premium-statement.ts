import { z } from 'zod';
import { CD_ENTRY_KINDS } from '../../domain/cd-account/account.js';
import type { PremiumStatement, StatementPosting } from '../../usecases/policy-year/premium-statement.js';
import { dateOut, moneyOut, outcome } from '../schemas/responses.js';

/** One posting of a monthly premium statement. */
const statementPostingSchema = z
  .object({
    id: z.string().meta({ example: 'cdl_5f0c2e8a4b7d4c1e9a3b6d2f8e1c7a90' }),
    kind: z
      .enum(CD_ENTRY_KINDS)
      .meta({ description: 'top_up, debit, credit or adjustment (holds move no balance)' }),
    amount: moneyOut.meta({ description: 'INR, signed: what the posting moved (a debit is negative)' }),
    balance: moneyOut.meta({ description: 'The CD balance after this posting (running), INR' }),
    posted_on: dateOut.meta({ description: 'The day it was posted, in India (D13)' }),
    endorsement_id: z.string().nullable(),
    endorsement_type: z.string().nullable().meta({ example: 'ENDORSEMENT_TYPE_ADDITION' }),
    members: z
      .array(z.object({ name: z.string(), relationship: z.string().meta({ example: 'SELF' }) }))
      .meta({ description: "The person the posting's endorsement covers: SELF for the employee" }),
    pro_rata_days: z
      .number()
      .int()
      .nullable()
      .meta({
        description:
          'The days the premium was pro-rated for: the covered days of an ADDITION or MODIFICATION, ' +
          'the unused days after the last covered day of a DELETION; null without an endorsement',
      }),
    reference: z.string().nullable().meta({ description: "A top-up's or adjustment's reference" }),
  })
  .meta({ id: 'PremiumStatementPosting' });
type StatementPostingOut = z.infer<typeof statementPostingSchema>;

export const premiumStatementPayload = z
  .object({
    statement: z.object({
      policy_id: z.string(),
      policy_number: z.string(),
      month: z.string().meta({ example: '2026-11' }),
      opening_balance: moneyOut.meta({
        description: 'The CD balance before the first day of the month, INR',
      }),
      postings: z.array(statementPostingSchema),
      closing_balance: moneyOut.meta({
        description: 'The opening balance plus every posting: the CD balance after the last day, INR',
      }),
    }),
    ...outcome('Premium statement fetched successfully'),
  })
  .meta({ id: 'PremiumStatementPayload' });

// As the CD ledger presents money: the stored decimal (paise exact) as a JSON number.
const money = (amount: string): number => Number(amount);

const presentPosting = (p: StatementPosting): StatementPostingOut => ({
  id: p.id,
  kind: p.kind,
  amount: money(p.amount),
  balance: money(p.balanceAfter),
  posted_on: p.postedOn,
  endorsement_id: p.endorsementId,
  endorsement_type: p.endorsementType,
  members: p.members.map((m) => ({ name: m.name, relationship: m.relationship })),
  pro_rata_days: p.proRataDays,
  reference: p.reference,
});

export const presentPremiumStatement = (s: PremiumStatement) => ({
  policy_id: s.policyId,
  policy_number: s.policyNumber,
  month: s.month,
  opening_balance: money(s.opening),
  postings: s.postings.map(presentPosting),
  closing_balance: money(s.closing),
});
