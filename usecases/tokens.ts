import { DUMMY_HASH } from '../domain/credentials.js';
import { normaliseScope, type Scope } from '../domain/scopes.js';
import type { SystemScope } from '../data/scope.js';
import {
  admitTokenAttempt,
  forgetTokenAttempt,
  recordTokenIssue,
  type ClientCredentials,
  type FailureBudgets,
} from '../data/tokens.js';

export interface TokenRequest {
  clientId: string;
  clientSecret: string;
  scopes: readonly Scope[];
  /** The caller's address, for the failure budgets. */
  source: string;
  now: Date;
}

export interface TokenRequestDeps {
  budgets: FailureBudgets;
  /** Client-secret verification (scrypt, with its concurrency bound). */
  checkSecret: (secret: string, storedHash: string) => Promise<boolean>;
}

export type TokenDecision =
  | { kind: 'limited'; retryAfterSeconds: number }
  | { kind: 'invalid_credentials' }
  | { kind: 'scopes_not_allowed'; refused: Scope[] }
  | { kind: 'granted'; client: ClientCredentials };

/** A client allowed `policy.all` may also ask for the narrower `policy.*` scopes (least privilege). */
const familyScope = (scope: Scope) => `${scope.split('.')[0]}.all`;

/**
 * Decides a token request (D3, D4): failure budgets first, before any hashing, for known and unknown
 * ids alike; then the secret; then the scopes; then the client's rolling-hour count of issued tokens.
 * Each step's concurrency story is in data/tokens.ts (advisory locks around count-then-insert).
 */
export async function decideTokenRequest(
  scope: SystemScope,
  req: TokenRequest,
  deps: TokenRequestDeps,
): Promise<TokenDecision> {
  const attempt = await admitTokenAttempt(scope, req.clientId, req.source, req.now, deps.budgets);
  if (attempt.kind === 'limited') return attempt;
  // An unknown id still pays for a full scrypt verification: same timing as a wrong secret.
  const valid = await deps.checkSecret(req.clientSecret, attempt.client?.secretHash ?? DUMMY_HASH);
  if (!attempt.client || !valid) return { kind: 'invalid_credentials' };
  const { client, attemptId } = attempt;

  const allowed = new Set<string | null>(client.allowedScopes.map(normaliseScope));
  const refused = req.scopes.filter((s) => !allowed.has(s) && !allowed.has(familyScope(s)));
  if (refused.length > 0) {
    await forgetTokenAttempt(scope, attemptId);
    return { kind: 'scopes_not_allowed', refused };
  }
  const success = await recordTokenIssue(scope, client, attemptId, req.now);
  if (success.kind === 'limited') return success;
  return { kind: 'granted', client };
}
