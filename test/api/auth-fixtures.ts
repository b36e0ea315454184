import type { Server } from 'node:http';
import jwt from 'jsonwebtoken';
import { createApp } from '../../api/app.js';
import { createTokenService, type SigningKey } from '../../api/auth/tokens.js';
import type { AppDeps } from '../../api/deps.js';
import { route, type RouteDef } from '../../api/route.js';
import { allRoutes } from '../../api/routes/index.js';
import { EmployeeSchema } from '../../db/entities/index.js';
import { systemClock, type Clock } from '../../domain/clock.js';
import type { Scope } from '../../domain/scopes.js';
import { client, type HttpClient } from '../support/http.js';
import { stack } from '../support/stack.js';

/** Protected probe routes: the auth middleware and the tenant filter exercised without any business route. */
export const PROBE_PATH = '/v1/test/probe';
export const PROBE_SCOPES: Scope[] = ['policy.get', 'policy.all'];
export const TENANT_PROBE_PATH = '/v1/test/employees';

const probeRoutes: RouteDef[] = [
  route({
    method: 'GET',
    path: PROBE_PATH,
    operationId: 'probeAuth',
    summary: 'auth probe',
    scopes: PROBE_SCOPES,
    handler: async ({ auth }) => ({ client_id: auth.clientId, scopes: auth.scopes }),
  }),
  route({
    method: 'GET',
    path: TENANT_PROBE_PATH,
    operationId: 'probeTenant',
    summary: 'tenant probe: every employee the handler can see',
    scopes: ['employee.get'],
    // Through the scope's entity work, which also carries its row-level security setting.
    handler: async ({ scope }) => {
      const rows = await scope.entities((em) => em.find(EmployeeSchema, {}, { orderBy: { id: 'asc' } }));
      return rows.map((row) => ({ id: row.id, client_id: row.clientId }));
    },
  }),
];

export interface ProbeApi {
  url: string;
  http: HttpClient;
  deps: AppDeps;
  close(): Promise<void>;
}

/** An API on the test stack with every real route plus the probes; closed by the caller. */
export async function startProbeApi(overrides: Partial<AppDeps> = {}): Promise<ProbeApi> {
  const deps = await stack().deps(overrides);
  const app = createApp(deps, [...allRoutes(), ...probeRoutes]);
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as { port: number };
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    http: client(url),
    deps,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await deps.credentials.close();
    },
  };
}

/** A token service like the API's, with any part swapped (keys, issuer, audience, clock). */
export function tokenService(
  o: { keys?: SigningKey[]; issuer?: string; audience?: string; clock?: Clock } = {},
) {
  const cfg = stack().config;
  return createTokenService({
    keys: o.keys ?? cfg.JWT_SIGNING_KEYS,
    issuer: o.issuer ?? cfg.JWT_ISSUER,
    audience: o.audience ?? cfg.JWT_AUDIENCE,
    clock: o.clock ?? systemClock,
  });
}

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Claims exactly as the service would put them, for hand-made tokens. */
export function claims(clientId: string, scopes: readonly Scope[] = PROBE_SCOPES) {
  const cfg = stack().config;
  const iat = Math.floor(Date.now() / 1000);
  return {
    iss: cfg.JWT_ISSUER,
    aud: cfg.JWT_AUDIENCE,
    sub: clientId,
    scope: scopes.join(' '),
    sv: 1,
    iat,
    exp: iat + 3600,
    jti: `jti-${iat}`,
  };
}

/** `alg: none` with the configured kid; `signature` lets a test add a bogus third part. */
export function unsignedToken(clientId: string, signature = ''): string {
  const kid = stack().config.JWT_SIGNING_KEYS[0]!.kid;
  return `${b64({ alg: 'none', typ: 'JWT', kid })}.${b64(claims(clientId))}.${signature}`;
}

/** Signed with the configured key but another HMAC algorithm than the pinned one. */
export function otherAlgorithmToken(clientId: string): string {
  const key = stack().config.JWT_SIGNING_KEYS[0]!;
  return jwt.sign(claims(clientId), key.secret, { algorithm: 'HS512', keyid: key.kid });
}

export function requestToken(http: HttpClient, body: unknown, headers: Record<string, string> = {}) {
  return http.post('/v1/auth/token', { body, headers });
}

export const unauthorizedBody = (instance: string) => ({
  type: 'UNAUTHORIZED',
  title: 'Unauthorized',
  detail: '',
  instance,
});
