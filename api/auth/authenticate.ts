import type Koa from 'koa';
import { readInsurerPrincipal } from '../../data/insurer-exchange/principals.js';
import { SystemScope } from '../../data/scope.js';
import { hasAnyScope, type Scope } from '../../domain/scopes.js';
import type { AppDeps } from '../deps.js';
import { insufficientScope, unauthorized } from '../errors.js';
import type { Auth } from './tokens.js';

/** RFC 6750: the scheme is case-insensitive; the token is a compact JWS (three base64url parts). */
const BEARER = /^Bearer +([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/i;

/** The one auth check every protected route goes through: 401 for a bad token, 403 for a missing scope. */
export async function authenticate(
  ctx: Koa.Context,
  deps: AppDeps,
  accepted: readonly Scope[],
): Promise<Auth> {
  const auth = verifiedToken(ctx, deps);
  // A rotated secret ends every token issued before it (D3).
  // A signed token naming a newer version than this copy knows means its notification is still on
  // the way: read PostgreSQL instead of refusing the client's fresh token.
  const current = await deps.credentials.secretVersion(auth.clientId, auth.secretVersion);
  if (current !== auth.secretVersion) throw unauthorized();
  if (!hasAnyScope(auth.scopes, accepted)) {
    throw insufficientScope(accepted);
  }
  return auth;
}

function verifiedToken(ctx: Koa.Context, deps: AppDeps): Auth {
  const match = BEARER.exec(ctx.get('authorization'));
  const auth = match?.[1] ? deps.tokens.verify(match[1]) : null;
  if (!auth) throw unauthorized();
  return auth;
}

/**
 * D14: the check of the insurer routes, in the same order as a client's: the token's subject must
 * be an insurer principal whose secret version still matches (else 401, as for any token that is
 * not ours: a client's token is no insurer's, whatever it claims), then the scope (403). The answer
 * carries the insurer id every query of the request filters by. One primary-key read.
 */
export async function authenticateInsurer(
  ctx: Koa.Context,
  deps: AppDeps,
  accepted: readonly Scope[],
): Promise<Auth & { insurerId: string }> {
  const auth = verifiedToken(ctx, deps);
  const principal = await readInsurerPrincipal(SystemScope.of(deps.orm.em), auth.clientId);
  if (!principal || principal.secretVersion !== auth.secretVersion) throw unauthorized();
  if (!hasAnyScope(auth.scopes, accepted)) throw insufficientScope(accepted);
  return { ...auth, insurerId: principal.insurerId };
}
