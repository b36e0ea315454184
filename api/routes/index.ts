import type { RouteDef } from '../route.js';
import { auditRoutes } from './audit.js';
import { authRoutes } from './auth.js';
import { censusRoutes } from './census.js';
import { coverageRoutes } from './coverage.js';
import { dependentRoutes } from './dependents.js';
import { employeeRoutes } from './employees.js';
import { endorsementRoutes } from './endorsements.js';
import { grantRoutes } from './grants.js';
import { healthRoutes } from './health.js';
import { insurerRoutes } from './insurer.js';
import { policyRoutes } from './policies.js';
import { reconciliationRoutes } from './reconciliations.js';
import { referenceRoutes } from './reference.js';
import { renewalRoutes } from './renewals.js';

/** Every route of the service; the OpenAPI document and the contract test read this same list. */
export function allRoutes(): RouteDef[] {
  const routes: RouteDef[] = [
    ...healthRoutes,
    ...authRoutes,
    ...policyRoutes,
    ...renewalRoutes,
    ...reconciliationRoutes,
    ...employeeRoutes,
    ...dependentRoutes,
    ...censusRoutes,
    ...endorsementRoutes,
    ...coverageRoutes,
    ...auditRoutes,
    ...grantRoutes,
    ...insurerRoutes,
  ];
  // The reference describes every route, its own two included.
  routes.push(...referenceRoutes(() => routes));
  return routes;
}
