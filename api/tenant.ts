import { TenantScope } from '../data/scope.js';
import type { Auth } from './auth/tokens.js';
import type { AppDeps } from './deps.js';

/**
 * The token's tenant (D1), made once per request: every repository call of a protected route goes
 * through this scope, so no handler names a client id or sets a filter itself.
 */
export const tenantScopeOf = (deps: AppDeps, auth: Auth): TenantScope =>
  TenantScope.of(deps.orm.em, auth.clientId);
