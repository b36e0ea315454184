import fs from 'node:fs/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import YAML from 'yaml';
import type { Config } from '../config/index.js';
import { findPolicyClient } from '../data/cd-account/account.js';
import { SystemScope, TenantScope } from '../data/scope.js';
import { systemClock } from '../domain/clock.js';
import { createLogger } from '../infra/logger.js';
import { createTemporalClient } from '../infra/temporal-client.js';
import {
  parseRenewalQuote,
  quotePolicyRenewal,
  RenewalRefused,
  startPolicyRenewal,
} from '../usecases/policy-year/renewals.js';
import { OperatorRefusal } from '../domain/operator-refusal.js';

const asOperatorRefusal = (err: unknown): never => {
  throw err instanceof RenewalRefused ? new OperatorRefusal(err.message) : err;
};

/** The insurer's quote file (JSON, or YAML for any other extension), validated. */
async function readQuote(file: string) {
  const text = await fs.readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new OperatorRefusal(`cannot read ${file} (${err.code})`);
  });
  let value: unknown;
  try {
    value = file.endsWith('.json') ? JSON.parse(text) : YAML.parse(text);
  } catch (err) {
    throw new OperatorRefusal(
      `${file} is not valid ${file.endsWith('.json') ? 'JSON' : 'YAML'}: ${(err as Error).message}`,
    );
  }
  try {
    return parseRenewalQuote(value);
  } catch (err) {
    return asOperatorRefusal(err);
  }
}

async function policyScope(em: EntityManager, policyId: string): Promise<TenantScope> {
  const clientId = await findPolicyClient(SystemScope.of(em), policyId);
  if (!clientId) throw new OperatorRefusal(`policy ${policyId} not found`);
  return TenantScope.of(em, clientId);
}

/**
 * `renewal:start POLICY_ID [--quote FILE]`: opens the policy term's renewal now (before the daily
 * pass would, RENEWAL_LEAD_DAYS before the end) with the insurer's quote when given, and starts its
 * workflow. Idempotent: a second start answers the open renewal (its quote unchanged: use
 * renewal:quote) and the same workflow.
 */
export async function startRenewal(em: EntityManager, config: Config, policyId?: string, quoteFile?: string) {
  if (!policyId) throw new OperatorRefusal('POLICY_ID is required');
  const quote = quoteFile ? await readQuote(quoteFile) : null;
  const scope = await policyScope(em, policyId);
  if (!config.TEMPORAL_ADDRESS)
    throw new OperatorRefusal('TEMPORAL_ADDRESS is not set (the renewal runs as a workflow)');
  const temporal = createTemporalClient(config);
  try {
    const deps = { temporal, config, clock: systemClock, logger: createLogger('warn') };
    const { renewal, workflow_id } = await startPolicyRenewal(deps, scope, policyId, quote).catch(
      asOperatorRefusal,
    );
    return {
      renewal_id: renewal.id,
      policy_id: policyId,
      status: renewal.status,
      next_term: { start_date: renewal.term_start, end_date: renewal.term_end },
      quote_loaded: renewal.quote !== null,
      workflow_id,
    };
  } finally {
    await temporal.connection.close();
  }
}

/** `renewal:quote POLICY_ID FILE`: the insurer's quote for an open renewal still DRAFT (replaces one before). */
export async function quoteRenewal(em: EntityManager, policyId?: string, quoteFile?: string) {
  if (!policyId || !quoteFile) throw new OperatorRefusal('POLICY_ID and FILE are required');
  const quote = await readQuote(quoteFile);
  const renewal = await quotePolicyRenewal(await policyScope(em, policyId), policyId, quote).catch(
    asOperatorRefusal,
  );
  return {
    renewal_id: renewal.id,
    policy_id: policyId,
    status: renewal.status,
    next_term: { start_date: renewal.term_start, end_date: renewal.term_end },
    quote_loaded: true,
  };
}
