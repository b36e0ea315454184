import { z } from 'zod';
import type { CdLedgerRow } from '../../data/cd-account/ledger.js';
import { CD_ENTRY_KINDS } from '../../domain/cd-account/account.js';
import { moneyOut, outcome, pagingOut } from '../schemas/responses.js';

/** One entry of a policy's CD account. */
export const cdLedgerEntrySchema = z
  .object({
    id: z.string().meta({ example: 'cdl_5f0c2e8a4b7d4c1e9a3b6d2f8e1c7a90' }),
    kind: z.enum(CD_ENTRY_KINDS),
    amount: moneyOut.meta({
      description:
        'INR, signed: what the entry moved: the balance for top_up, debit, credit and adjustment ' +
        '(a debit is negative), the held sum for hold (positive) and release (negative)',
    }),
    balance: moneyOut.meta({ description: 'The CD balance after this entry (running), INR' }),
    held: moneyOut.meta({ description: 'The sum held after this entry (running), INR' }),
    endorsement_id: z.string().nullable(),
    reference: z.string().nullable().meta({ description: "A top-up's or adjustment's reference" }),
    created_at: z.string().meta({ example: '2026-11-23T10:15:00.000Z' }),
  })
  .meta({ id: 'CdLedgerEntry' });
export type CdLedgerEntryOut = z.infer<typeof cdLedgerEntrySchema>;

const money = (amount: string): number => Number(amount);

export function presentCdLedgerEntry(row: CdLedgerRow): CdLedgerEntryOut {
  const movesHeld = row.kind === 'hold' || row.kind === 'release';
  return {
    id: row.id,
    kind: row.kind,
    amount: money(movesHeld ? row.held_change : row.amount),
    balance: money(row.balance_after),
    held: money(row.held_after),
    endorsement_id: row.endorsement_id,
    reference: row.reference,
    created_at: row.created_at,
  };
}

export const listCdLedgerPayload = z
  .object({
    entries: z.array(cdLedgerEntrySchema),
    ...pagingOut,
    ...outcome('CD ledger fetched successfully'),
  })
  .meta({ id: 'ListCdLedgerPayload' });
