import { createSecretKey, randomUUID, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { Clock } from '../../domain/clock.js';
import { normaliseScope, type Scope } from '../../domain/scopes.js';

export const TOKEN_TTL_SECONDS = 3600;
const ALGORITHM = 'HS256' as const;
const CLOCK_TOLERANCE_SECONDS = 30;
const VERIFIED_CACHE_MAX = 10_000;

export interface SigningKey {
  kid: string;
  secret: string;
}

/** What a verified token says: the tenant and what it may do. */
export interface Auth {
  /** The token's subject: a client (tenant), or on insurer routes an insurer principal. */
  clientId: string;
  /** Set on insurer routes only (D14): the insurer the principal acts for. */
  insurerId?: string;
  tokenId: string;
  scopes: Scope[];
  secretVersion: number;
}

export interface TokenServiceOptions {
  keys: SigningKey[];
  issuer: string;
  audience: string;
  clock: Clock;
}

/** D3: pinned algorithm, `kid` header, iss/aud/sub/scope/iat/exp/jti; every configured key verifies. */
export function createTokenService({ keys, issuer, audience, clock }: TokenServiceOptions) {
  const [signer] = keys;
  if (!signer) throw new Error('at least one signing key is required');
  // KeyObjects built once: given a string, jsonwebtoken first tries to parse it as a public key on
  // every call, which costs ~50x the HMAC itself.
  const byKid = new Map<string, KeyObject>(keys.map((k) => [k.kid, createSecretKey(Buffer.from(k.secret))]));
  const signingKey = byKid.get(signer.kid)!;

  function issue(clientId: string, scopes: readonly Scope[], secretVersion: number): string {
    const iat = Math.floor(clock.now().getTime() / 1000);
    return jwt.sign(
      { scope: scopes.join(' '), sv: secretVersion, iat, exp: iat + TOKEN_TTL_SECONDS },
      signingKey,
      { algorithm: ALGORITHM, keyid: signer!.kid, issuer, audience, subject: clientId, jwtid: randomUUID() },
    );
  }

  /**
   * Tokens that verified, with their expiry: a client sends the same token for up to an hour, so a repeat
   * costs a map lookup instead of a decode and an HMAC. Only successes are kept (a forged token is never
   * cached), the expiry is re-checked against the clock on every hit, and the map is bounded.
   */
  const verified = new Map<string, { auth: Auth; exp: number }>();

  /** Returns null for anything that is not a live token of ours; the caller answers 401. */
  function verify(token: string): Auth | null {
    const nowSeconds = Math.floor(clock.now().getTime() / 1000);
    const hit = verified.get(token);
    if (hit) {
      if (nowSeconds <= hit.exp + CLOCK_TOLERANCE_SECONDS) return hit.auth;
      verified.delete(token);
      return null;
    }
    const checked = verifyClaims(token, nowSeconds);
    if (checked) {
      if (verified.size >= VERIFIED_CACHE_MAX) verified.clear();
      verified.set(token, checked);
    }
    return checked?.auth ?? null;
  }

  function verifyClaims(token: string, nowSeconds: number): { auth: Auth; exp: number } | null {
    const decoded = jwt.decode(token, { complete: true });
    const kid = decoded?.header.kid;
    const secret = kid ? byKid.get(kid) : undefined;
    if (!secret || decoded?.header.alg !== ALGORITHM) return null;
    try {
      const claims = jwt.verify(token, secret, {
        algorithms: [ALGORITHM],
        issuer,
        audience,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        clockTimestamp: nowSeconds,
      });
      if (typeof claims === 'string') return null;
      const { sub, jti, scope, sv, exp, iat } = claims as jwt.JwtPayload & { scope?: unknown; sv?: unknown };
      if (!sub || !jti || typeof scope !== 'string' || typeof sv !== 'number' || typeof exp !== 'number')
        return null;
      // A token from the future (beyond the skew) is not valid yet.
      if (typeof iat !== 'number' || iat > nowSeconds + CLOCK_TOLERANCE_SECONDS) return null;
      // We never issue a longer-lived token: one that claims more was not made by this service's rules.
      if (exp - iat > TOKEN_TTL_SECONDS) return null;
      const scopes = scope.split(' ').map(normaliseScope);
      if (scopes.some((s) => s === null)) return null;
      return { auth: { clientId: sub, tokenId: jti, scopes: scopes as Scope[], secretVersion: sv }, exp };
    } catch {
      return null;
    }
  }

  return { issue, verify };
}

export type TokenService = ReturnType<typeof createTokenService>;
