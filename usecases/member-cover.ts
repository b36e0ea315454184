import { endLapsedCoverOfAllClients } from '../data/member-cover.js';
import type { SystemScope } from '../data/scope.js';

/**
 * D10's daily pass: every member row whose cover ended before `today` (its coverage_end_date passed:
 * a future-dated DELETION or a grant's end) turns inactive, across clients, with an audit entry per
 * row. Reads already apply the rule by date; this keeps the stored status in step. One statement;
 * idempotent (a second run the same day ends nothing) and safe beside approvals (rows they hold are
 * re-checked after they commit). Returns how many rows it ended.
 */
export function endLapsedCover(system: SystemScope, today: string): Promise<number> {
  return endLapsedCoverOfAllClients(system, today);
}
