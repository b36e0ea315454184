import { SystemScope } from '../data/scope.js';
import { checkAllCdLow } from '../usecases/cd-account/account.js';
import { startDeliveries } from '../usecases/webhooks/deliveries.js';
import type { ActivityDeps } from './deps.js';

/** The CD account's daily pass as one activity (a one-pass workflow on a daily Schedule runs it). */
export function createCdAccountActivities(deps: ActivityDeps) {
  return {
    /** Every active policy's low-balance check; a retry warns nothing twice (one event per crossing). */
    async checkCdBalances(): Promise<{ checked: number; warned: number }> {
      const { checked, deliveries } = await checkAllCdLow(SystemScope.of(deps.orm.em));
      await startDeliveries(deps, deps.orm.em, deliveries);
      return { checked, warned: deliveries.length };
    },
  };
}
