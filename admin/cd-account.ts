import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config/index.js';
import { SystemScope } from '../data/scope.js';
import { parseRupees } from '../domain/cd-account/account.js';
import { createTemporalClient } from '../infra/temporal-client.js';
import {
  CdTopUpRefused,
  setPolicyCdThreshold,
  topUpCd,
  wakeFundedEndorsements,
} from '../usecases/cd-account/account.js';
import { OperatorRefusal } from '../domain/operator-refusal.js';

/**
 * `cd:topup POLICY_ID AMOUNT --reference REF`: credits the policy's CD account (rupees, paise
 * exact), idempotent by reference, and funds the endorsements waiting for it, oldest first. Their
 * workflows are told at once when Temporal is reachable; otherwise each finds its hold at its next
 * re-check. Webhooks the change recorded go out through the sweeper.
 */
export async function topUp(
  em: EntityManager,
  config: Config,
  policyId: string | undefined,
  amountText: string | undefined,
  reference: string | undefined,
) {
  if (!policyId || !amountText) throw new OperatorRefusal('POLICY_ID and AMOUNT are required');
  if (!reference?.trim())
    throw new OperatorRefusal('--reference is required (it makes the top-up idempotent)');
  let amount: bigint;
  try {
    amount = parseRupees(amountText);
  } catch (err) {
    throw new OperatorRefusal((err as Error).message);
  }
  const result = await topUpCd(SystemScope.of(em), policyId, amount, reference.trim()).catch(
    (err: unknown) => {
      throw err instanceof CdTopUpRefused ? new OperatorRefusal(err.message) : err;
    },
  );
  const { funded, deliveries: _deliveries, ...answer } = result;
  return { ...answer, woken: await wake(config, funded) };
}

async function wake(config: Config, funded: string[]): Promise<number | string> {
  if (funded.length === 0) return 0;
  if (!config.TEMPORAL_ADDRESS)
    return 'not woken: TEMPORAL_ADDRESS is not set (each finds its hold at its next re-check)';
  const temporal = createTemporalClient(config);
  try {
    await wakeFundedEndorsements(temporal, funded);
    return funded.length;
  } finally {
    await temporal.connection.close();
  }
}

/**
 * `cd:threshold POLICY_ID AMOUNT|default`: the policy's low-balance threshold in rupees (paise
 * exact; zero turns the warning off), or back to the default, 10 % of the gross annual premium.
 * The check runs at once; a warning it records goes out through the sweeper.
 */
export async function setThreshold(
  em: EntityManager,
  policyId: string | undefined,
  amountText: string | undefined,
) {
  if (!policyId || !amountText) throw new OperatorRefusal('POLICY_ID and AMOUNT (or default) are required');
  let amount: bigint | null = null;
  if (amountText !== 'default') {
    try {
      amount = /^0+(\.0{1,2})?$/.test(amountText.trim()) ? 0n : parseRupees(amountText);
    } catch (err) {
      throw new OperatorRefusal((err as Error).message);
    }
  }
  const result = await setPolicyCdThreshold(SystemScope.of(em), policyId, amount).catch((err: unknown) => {
    throw err instanceof CdTopUpRefused ? new OperatorRefusal(err.message) : err;
  });
  const { deliveries: _deliveries, ...answer } = result;
  return answer;
}
