import type { SystemScope } from './scope.js';

/** Platform-wide figures for the metrics endpoint: counts only, no tenant label, no personal data. */

export interface EndorsementCount {
  type: string;
  status: string;
  n: string;
}

export interface DecisionTime {
  type: string;
  status: string;
  seconds: number;
}

export const countEndorsementsByTypeAndStatus = (system: SystemScope) =>
  system.sql<EndorsementCount>('select type, status, count(*) as n from endorsements group by type, status');

/** Two watermarks in PostgreSQL's clock (which stamps decided_at): now minus each lag. */
export async function readDecisionWatermarks(
  system: SystemScope,
  lagMs: number,
  uptimeMs: number,
): Promise<{ until: Date; start: Date }> {
  const [mark] = await system.sql<{ until: Date; start: Date }>(
    `select now() - ? * interval '1 millisecond' as until, now() - ? * interval '1 millisecond' as start`,
    [lagMs, uptimeMs],
  );
  return mark!;
}

/** Create-to-decision times of the endorsements decided in (since, until]. */
export const readDecisionTimesBetween = (system: SystemScope, since: Date, until: Date) =>
  system.sql<DecisionTime>(
    `select type, status, extract(epoch from decided_at - created_at)::float8 as seconds
       from endorsements where decided_at > ? and decided_at <= ?`,
    [since, until],
  );
