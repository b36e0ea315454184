import type { EntityManager } from '@mikro-orm/postgresql';
import { createInsurerClient } from '../usecases/insurer-exchange/principals.js';
import { createTokenService } from '../api/auth/tokens.js';
import type { Config } from '../config/index.js';
import { systemClock } from '../domain/clock.js';
import { INSURER_SCOPES } from '../domain/scopes.js';
import type { BenchDataset } from './dataset.js';

/** The bench insurer's waiting endorsements: on a policy no other scenario writes endorsements to. */
const BACKLOG_POLICY = 4;

/**
 * D14: `count` endorsements waiting for the bench insurer (SENT_TO_INSURER, one per employee, the
 * first the oldest), written set-based as rows only: their workflows are marked started so no
 * reconciler starts 10,000 of them. `decidedAhead` APPROVED endorsements on the same policy are
 * written first, ahead of them in the table, as the decisions of earlier months lie in a service's.
 * Returns a token of a new insurer principal of the bench insurer, made as `insurer-client:create`
 * makes one, holding `insurer.endorsements`.
 */
export async function seedInsurerBacklog(
  em: EntityManager,
  config: Pick<Config, 'JWT_SIGNING_KEYS' | 'JWT_ISSUER' | 'JWT_AUDIENCE'>,
  dataset: BenchDataset,
  count = 10_000,
  decidedAhead = 0,
): Promise<string> {
  await em.getConnection().execute(
    `insert into endorsements (id, client_id, policy_id, employee_id, type, status, coverage_start_date,
       coverage_end_date, premium_impact, sum_insured, workflow_started_at, sent_to_insurer_at)
     select 'end_decided' || ? || g, ?, ?, 'emp_' || ? || (1 + g % ?), 'ENDORSEMENT_TYPE_ADDITION',
            'ENDORSEMENT_STATUS_APPROVED', date '2026-06-01', date '2027-04-30', 3650, 300000, now(),
            now() - interval '60 days'
       from generate_series(1, ?) g`,
    [
      dataset.tag === 'bench' ? '' : `_${dataset.tag}_`,
      dataset.clientId,
      dataset.policyIds[BACKLOG_POLICY],
      dataset.tag,
      dataset.employeeIds.length,
      decidedAhead,
    ],
  );
  await em.getConnection().execute(
    `insert into endorsements (id, client_id, policy_id, employee_id, type, status, coverage_start_date,
       coverage_end_date, premium_impact, sum_insured, workflow_started_at, sent_to_insurer_at)
     select 'end_backlog' || ? || g, ?, ?, 'emp_' || ? || g, 'ENDORSEMENT_TYPE_ADDITION',
            'ENDORSEMENT_STATUS_SENT_TO_INSURER', date '2026-06-01', date '2027-04-30', 3650, 300000, now(),
            now() - make_interval(secs => ? - g)
       from generate_series(1, ?) g`,
    [
      dataset.tag === 'bench' ? '' : `_${dataset.tag}_`,
      dataset.clientId,
      dataset.policyIds[BACKLOG_POLICY],
      dataset.tag,
      count,
      count,
    ],
  );
  await em.getConnection().execute('analyze endorsements');
  const made = await createInsurerClient(em.fork(), 'BENCH');
  return createTokenService({
    keys: config.JWT_SIGNING_KEYS!,
    issuer: config.JWT_ISSUER,
    audience: config.JWT_AUDIENCE,
    clock: systemClock,
  }).issue(made.client_id, INSURER_SCOPES, 1);
}
