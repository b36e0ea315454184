import { z } from 'zod';
import { DUMMY_HASH, verifySecret } from '../../domain/credentials.js';
import { normaliseScope, SCOPES, type Scope } from '../../domain/scopes.js';
import { TOKEN_TTL_SECONDS } from '../auth/tokens.js';
import { admitTokenRequest, markIssued, RETRY_AFTER_SECONDS } from '../auth/token-requests.js';
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
  { error: 'must be a JSON object' },
);

/** A client allowed `policy.all` may also ask for the narrower `policy.*` scopes (least privilege). */
const familyScope = (scope: Scope) => `${scope.split('.')[0]}.all`;

/** Same body for an unknown client and a wrong secret: existence must not leak (spec 7). */
const invalidCredentials = () =>
  new ApiError(401, 'A4001', 'Invalid Authentication Credentials', 'client_id or client_secret is not valid');

const rateLimited = () =>
  new ApiError(
    429,
    'A4290',
    'Rate Limit Exceeded',
    `Too many token requests for this client in the last hour; retry in ${RETRY_AFTER_SECONDS} seconds.`,
    { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  );

const scopesNotAllowed = (refused: readonly string[]) =>
  forbidden('Forbidden', `scopes not allowed for this client: ${refused.join(', ')}`);

export const authRoutes = [
  route({
    method: 'POST',
    path: '/v1/auth/token',
    summary: 'Generate token',
    description:
      'Scope names are case-insensitive and `_` equals `.` (D2). At most 100 requests per client in any ' +
      'rolling hour, failed ones included (D4).',
    scopes: 'public',
    body: tokenRequest,
    response: tokenPayload,
    errors: [invalidCredentials(), scopesNotAllowed(['policy.all']), rateLimited()],
    handler: async ({ body, em, deps, ctx }) => {
      // Counted before the secret is checked, so failed guesses use up the window too (D4).
      const admission = await admitTokenRequest(em, body.client_id, deps.clock.now());
      if (admission.kind === 'limited') {
        deps.metrics.tokenRateLimited();
        throw rateLimited();
      }
      // An unknown id still pays for a full scrypt verification: same timing as a wrong secret.
      const stored = admission.kind === 'admitted' ? admission.client.secretHash : DUMMY_HASH;
      const valid = await verifySecret(body.client_secret, stored);
      if (admission.kind !== 'admitted' || !valid) throw invalidCredentials();
      const { client, requestId } = admission;

      const allowed = new Set<string | null>(client.allowedScopes.map(normaliseScope));
      const refused = body.scopes.filter((scope) => !allowed.has(scope) && !allowed.has(familyScope(scope)));
      if (refused.length > 0) throw scopesNotAllowed(refused);

      await markIssued(em, requestId);
      deps.metrics.tokenIssued();
      ctx.set('Cache-Control', 'no-store');
      return {
        access_token: deps.tokens.issue(client.id, body.scopes, client.secretVersion),
        expires_in: TOKEN_TTL_SECONDS,
        token_type: 'Bearer',
      };
    },
  }),
  route({
    method: 'GET',
    path: '/v1/auth/session',
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
