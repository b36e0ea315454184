import type { EndorsementType } from '../domain/enums.js';
import { newId } from '../domain/ids.js';
import type { TenantScope } from './scope.js';

/** One endorsement's movement of its policy's CD balance (amounts exact, as decimal strings). */
export interface EndorsementLedgerEntry {
  policyId: string;
  endorsementId: string;
  reason: EndorsementType;
  /** Signed: a debit is negative. */
  amount: string;
  balanceAfter: string;
}

/**
 * Posts an endorsement's CD ledger entry and sets the policy's balance, inside the caller's
 * transaction (the policy row is locked by then). Idempotent: cd_ledger_entries.endorsement_id is
 * unique, so a retry inserts nothing and leaves the balance alone.
 */
export async function postEndorsementLedgerEntry(
  scope: TenantScope,
  entry: EndorsementLedgerEntry,
): Promise<void> {
  const inserted = await scope.sql<{ id: string }>(
    `insert into cd_ledger_entries (id, client_id, policy_id, endorsement_id, amount, balance_after, reason)
     values (?, ?, ?, ?, ?, ?, ?)
     on conflict (endorsement_id) do nothing
     returning id`,
    [
      newId('ledger'),
      scope.clientId,
      entry.policyId,
      entry.endorsementId,
      entry.amount,
      entry.balanceAfter,
      entry.reason,
    ],
  );
  if (inserted[0]) {
    await scope.sql('update policies set cd_balance = ?::numeric where client_id = ? and id = ?', [
      entry.balanceAfter,
      scope.clientId,
      entry.policyId,
    ]);
  }
}
