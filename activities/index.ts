import type { ActivityDeps } from './deps.js';
import { createEndorsementActivities } from './endorsement.js';
import { createWebhookActivities } from './webhook.js';
import { createGrantActivities } from './grant.js';
import { pingDatabase } from '../data/health.js';
import { SystemScope } from '../data/scope.js';
import { createCdAccountActivities } from './cd-account.js';
import { createMemberCoverActivities } from './member-cover.js';
import { createInsurerInboxActivities } from './insurer-inbox.js';
import { createInsurerCutOffActivities } from './insurer-cut-off.js';
import { createRosterActivities } from './roster-reconciliation.js';
import { createCensusActivities } from './census.js';
import { createDependentAgeOutActivities } from './dependent-age-out.js';
import { createRenewalActivities } from './renewal.js';

/** Builds every activity from explicit dependencies (no globals), as the worker registers them. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createEndorsementActivities(deps),
    ...createWebhookActivities(deps),
    ...createGrantActivities(deps),
    ...createMemberCoverActivities(deps),
    ...createCdAccountActivities(deps),
    ...createInsurerInboxActivities(deps),
    ...createInsurerCutOffActivities(deps),
    ...createRosterActivities(deps),
    ...createCensusActivities(deps),
    ...createDependentAgeOutActivities(deps),
    ...createRenewalActivities(deps),
    async ping(name: string): Promise<string> {
      const answered = await pingDatabase(SystemScope.of(deps.orm.em)).then(
        () => true,
        () => false,
      );
      return `activity:${name}:${answered ? 'db' : 'no-db'}`;
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;
export type { ActivityDeps };
