import { SystemScope } from '../data/scope.js';
import { today } from '../domain/clock.js';
import { endLapsedCover } from '../usecases/member-cover.js';
import type { ActivityDeps } from './deps.js';

/** D10's daily pass as one activity (a one-pass workflow on a daily Schedule runs it). */
export function createMemberCoverActivities(deps: ActivityDeps) {
  return {
    /** Ends the cover of every member row whose coverage_end_date is before today; idempotent. */
    async endLapsedCover(): Promise<{ ended: number }> {
      const ended = await endLapsedCover(SystemScope.of(deps.orm.em), today(deps.clock));
      if (ended > 0) deps.logger.info({ ended }, 'ended lapsed member cover');
      return { ended };
    },
  };
}
