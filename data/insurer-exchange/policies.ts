import type { SystemScope } from '../scope.js';

/**
 * The policy an insurer's exchange file is for (a roster, a CD statement, a response file): its
 * client, number and insurer, read before the tenant is known (the file names the policy).
 */
export interface ExchangePolicy {
  policyId: string;
  clientId: string;
  policyNumber: string;
  insurerCode: string;
  adapter: string;
  adapterSettings: unknown;
}

const EXCHANGE_POLICY = `p.id as "policyId", p.client_id as "clientId", p.policy_number as "policyNumber",
  i.code as "insurerCode", i.adapter, i.adapter_settings as "adapterSettings"`;

export async function readExchangePolicy(
  system: SystemScope,
  policyId: string,
): Promise<ExchangePolicy | undefined> {
  const [row] = await system.sql<ExchangePolicy>(
    `select ${EXCHANGE_POLICY} from policies p join insurers i on i.id = p.insurer_id where p.id = ?`,
    [policyId],
  );
  return row;
}

/** The policies of the insurer of a code, across every client whose policies name it. */
export function listExchangePoliciesOfInsurerCode(
  system: SystemScope,
  code: string,
): Promise<ExchangePolicy[]> {
  return system.sql<ExchangePolicy>(
    `select ${EXCHANGE_POLICY} from policies p join insurers i on i.id = p.insurer_id where i.code = ? order by p.id`,
    [code],
  );
}

/** Active policies whose insurer uses `adapter`: those a scheduled reconciliation may fetch a roster for. */
export function activeRosterPoliciesOfAdapter(
  system: SystemScope,
  adapter: string,
): Promise<ExchangePolicy[]> {
  return system.sql<ExchangePolicy>(
    `select ${EXCHANGE_POLICY} from policies p join insurers i on i.id = p.insurer_id
      where i.adapter = ? and p.status = 'POLICY_STATUS_ACTIVE' order by p.id`,
    [adapter],
  );
}
