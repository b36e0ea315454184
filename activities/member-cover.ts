import { SystemScope } from '../data/scope.js';
import { today } from '../domain/clock.js';
import { endLapsedCover } from '../usecases/member-cover.js';
import { announceOverdueExits } from '../usecases/endorsements/exits.js';
import { startDeliveries } from '../usecases/webhooks/deliveries.js';
import type { ActivityDeps } from './deps.js';

/** D10's daily pass as one activity (a one-pass workflow on a daily Schedule runs it). */
export function createMemberCoverActivities(deps: ActivityDeps) {
  return {
    /**
     * Ends the cover of every member row whose coverage_end_date is before today, then announces
     * the leavers' exits still pending after their leaving date (D16); both idempotent (an exit is
     * announced once per leaving date). An activity change only: the pass workflow is as it was.
     */
    async endLapsedCover(): Promise<{ ended: number; overdueExits: number }> {
      const system = SystemScope.of(deps.orm.em);
      const day = today(deps.clock);
      const ended = await endLapsedCover(system, day);
      if (ended > 0) deps.logger.info({ ended }, 'ended lapsed member cover');
      const { announced, deliveries } = await announceOverdueExits(deps, system, day);
      if (announced.length > 0) deps.logger.info({ announced: announced.length }, 'announced overdue exits');
      await startDeliveries(deps, deps.orm.em, deliveries);
      return { ended, overdueExits: announced.length };
    },
  };
}
