import { z } from 'zod';
import { SystemScope } from '../../data/scope.js';
import { normaliseScope, SCOPES, type Scope } from '../../domain/scopes.js';
import { decideTokenRequest } from '../../usecases/tokens.js';
import { TOKEN_TTL_SECONDS } from '../auth/tokens.js';
import { clientAddress } from '../auth/client-address.js';
import type { AppDeps } from '../deps.js';
import { ApiError, forbidden } from '../errors.js';
import { route } from '../route.js';
import { sessionPayload, tokenPayload } from '../schemas/auth.js';

const requiredString = (max: number) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`);

/** D2: a non-empty list of known scope names, normalised (`EMPLOYEE_GET` = `employee.get`) and deduplicated. */
const scopeList = z
  .array(z.string({ error: 'must be a scope name (string)' }), {
    error: (issue) => (issue.input === undefined ? 'is required' : 'must be an array of scope names'),
  })
  .min(1, 'must contain at least one scope')
  .max(32, 'must contain at most 32 scopes')
  .transform((names, ctx) => {
    const scopes: Scope[] = [];
    names.forEach((name, index) => {
      const scope = normaliseScope(name);
      if (!scope) {
        const shown = JSON.stringify(name.slice(0, 64));
        ctx.addIssue({
          code: 'custom',
          path: [index],
          message: `unknown scope ${shown}; known: ${SCOPES.join(', ')}`,
        });
      } else if (!scopes.includes(scope)) scopes.push(scope);
    });
    return scopes;
  });

const tokenRequest = z.strictObject(
  { client_id: requiredString(128), client_secret: requiredString(256), scopes: scopeList },
  { error: 'must be an object' },
);

/** Same body for an unknown client and a wrong secret: existence must not leak (spec 7). */
const invalidCredentials = () =>
  new ApiError(401, 'A4001', 'Invalid Authentication Credentials', 'client_id or client_secret is not valid');

/** D4: the detail keeps its fixed advice; `Retry-After` gives the real seconds until a slot frees. */
const rateLimited = (retryAfterSeconds = 60) =>
  new ApiError(
    429,
    'A4290',
    'Rate Limit Exceeded',
    'Too many token requests for this client in the last hour; retry in 60 seconds.',
    { 'Retry-After': String(retryAfterSeconds) },
  );

const limited = (deps: AppDeps, retryAfterSeconds: number) => {
  deps.metrics.tokenRateLimited();
  return rateLimited(retryAfterSeconds);
};

const scopesNotAllowed = (refused: readonly string[]) =>
  forbidden('Forbidden', `scopes not allowed for this client: ${refused.join(', ')}`);

/** client_id (128) + client_secret (256) + 32 scope names fit in well under this. */
export const TOKEN_BODY_LIMIT = 4 * 1024;

export const authRoutes = [
  route({
    method: 'POST',
    path: '/v1/auth/token',
    operationId: 'issueToken',
    summary: 'Generate token',
    description:
      'Scope names are case-insensitive and `_` equals `.` (D2). At most 100 tokens per client in any ' +
      'rolling hour; failed requests have their own budget per client_id and source address (D4). ' +
      '`Retry-After` on a 429 gives the seconds until a slot frees.',
    scopes: 'public',
    // Anyone may call this route: its body is a few hundred bytes, so nothing larger is ever read.
    bodyLimit: TOKEN_BODY_LIMIT,
    body: tokenRequest,
    response: tokenPayload,
    errors: [invalidCredentials(), scopesNotAllowed(['policy.all']), rateLimited()],
    handler: async ({ body, em, deps, ctx }) => {
      // Token requests name a client that is not yet authenticated: the counts are system rows.
      const decision = await decideTokenRequest(
        SystemScope.of(em),
        {
          clientId: body.client_id,
          clientSecret: body.client_secret,
          scopes: body.scopes,
          source: clientAddress(ctx, deps.trustedProxies),
          now: deps.clock.now(),
        },
        {
          budgets: {
            perClientAndSource: deps.config.TOKEN_FAILURES_PER_CLIENT_SOURCE,
            perSource: deps.config.TOKEN_FAILURES_PER_SOURCE,
          },
          checkSecret: (secret, hash) => deps.secretChecks.check(secret, hash),
        },
      );
      if (decision.kind === 'limited') throw limited(deps, decision.retryAfterSeconds);
      if (decision.kind === 'invalid_credentials') throw invalidCredentials();
      if (decision.kind === 'scopes_not_allowed') throw scopesNotAllowed(decision.refused);
      deps.metrics.tokenIssued();
      ctx.set('Cache-Control', 'no-store');
      return {
        access_token: deps.tokens.issue(decision.client.id, body.scopes, decision.client.secretVersion),
        expires_in: TOKEN_TTL_SECONDS,
        token_type: 'Bearer',
      };
    },
  }),
  route({
    method: 'GET',
    path: '/v1/auth/session',
    operationId: 'getSession',
    summary: 'Describe the presented token',
    // Any valid token of ours: integrators use it to check a token before a batch of calls.
    scopes: SCOPES,
    response: sessionPayload,
    handler: async ({ auth }) => ({
      client_id: auth.clientId,
      scopes: auth.scopes,
      message: 'Token is valid',
      success: true,
    }),
  }),
];
