import { SystemScope } from '../data/scope.js';
import { removeAgedOutChildren } from '../usecases/dependents/age-out.js';
import type { ActivityDeps } from './deps.js';

/** D16's daily age-out pass as one activity (a one-pass workflow on a daily Schedule runs it). */
export function createDependentAgeOutActivities(deps: ActivityDeps) {
  return {
    /** DELETIONs for children ageing out at their policy's renewal; a retry creates nothing twice. */
    async removeAgedOutChildren(): Promise<{ due: number; removed: number }> {
      const result = await removeAgedOutChildren(deps, SystemScope.of(deps.orm.em));
      if (result.due > 0) deps.logger.info(result, 'children ageing out at renewal');
      return result;
    },
  };
}
