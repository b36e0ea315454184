import { expect } from 'chai';
import { allRoutes } from '../../api/routes/index.js';
import type { RouteDef } from '../../api/route.js';
import { fixedClock } from '../../domain/clock.js';
import { SCOPES, type Scope } from '../../domain/scopes.js';
import { makeClient, type TestClient } from '../support/factories.js';
import { client, type HttpClient } from '../support/http.js';
import { stack } from '../support/stack.js';
import { tokenService, unauthorizedBody, unsignedToken } from './auth-fixtures.js';

/** D2's table: every endpoint it names must accept exactly these scopes, whoever adds the route. */
const D2: Record<string, Scope[]> = {
  'GET /v1/policy': ['policy.list', 'policy.all'],
  'GET /v1/policy/{}': ['policy.get', 'policy.all'],
  'GET /v1/policy/{}/members': ['policy.members.list', 'policy.all'],
  'GET /v1/policy/endorsements/{}': ['policy.get', 'policy.all'],
  'GET /v1/policy/grant/{}': ['policy.get', 'policy.all'],
  'GET /v1/policy/coverage/{}': ['policy.get', 'policy.all'],
  'POST /v1/policy/endorsements': ['policy.all'],
  'POST /v1/policy/endorsements/{}/cancel': ['policy.all'],
  'POST /v1/policy/grant': ['policy.all'],
  'GET /v1/client/employees/profile': ['employee.get', 'employee.all'],
  'POST /v1/client/employees': ['employee.create', 'employee.all'],
  'PUT /v1/client/employees/{}': ['employee.update', 'employee.all'],
  'PATCH /v1/client/employees/bulk': ['employee.update', 'employee.all'],
};

const PARAM = /:\w+(\([^)]*\))?\??/g;
const shape = (def: RouteDef) => `${def.method} ${def.path.replace(PARAM, '{}').replace(/(.)\/$/, '$1')}`;
/** A concrete URL for the route: path parameters become an id nobody has. */
const concrete = (def: RouteDef) => def.path.replace(PARAM, 'zz_unknown_0001');

type Protected = RouteDef & { scopes: readonly Scope[] };
const protectedRoutes = allRoutes().filter((def): def is Protected => def.scopes !== 'public');

describe('every protected route x every kind of bad token (spec 5, D2, D3)', () => {
  let http: HttpClient;
  let acme: TestClient;

  before(async () => {
    const api = await stack().startApi();
    http = client(api.url);
    acme = await makeClient();
  });

  it('lists protected routes, each declaring known scopes', () => {
    expect(protectedRoutes.length).to.be.greaterThan(0);
    for (const def of protectedRoutes) {
      expect(def.scopes, shape(def)).to.not.be.empty;
      for (const scope of def.scopes) expect(SCOPES, shape(def)).to.include(scope);
    }
  });

  it('gives every endpoint of D2’s table exactly the scopes D2 names', () => {
    for (const def of allRoutes()) {
      const expected = D2[shape(def)];
      if (expected) expect(def.scopes, shape(def)).to.have.members(expected);
    }
  });

  it('serves the token endpoint without a bearer token', async () => {
    const res = await http.post('/v1/auth/token', { body: {} });
    expect(res.status).to.equal(400);
  });

  const badTokens: { name: string; token: (def: Protected) => string | undefined }[] = [
    { name: 'no token', token: () => undefined },
    { name: 'garbage', token: () => 'not-a-jwt' },
    {
      name: 'expired',
      token: (def) =>
        tokenService({ clock: fixedClock(new Date(Date.now() - 2 * 3600_000)) }).issue(
          acme.clientId,
          def.scopes,
          1,
        ),
    },
    { name: 'alg none', token: () => unsignedToken(acme.clientId) },
    {
      name: 'unknown key',
      token: (def) =>
        tokenService({ keys: [{ kid: 'unknown-kid', secret: 'u'.repeat(40) }] }).issue(
          acme.clientId,
          def.scopes,
          1,
        ),
    },
    {
      name: 'wrong audience',
      token: (def) => tokenService({ audience: 'another-api' }).issue(acme.clientId, def.scopes, 1),
    },
  ];

  for (const def of protectedRoutes) {
    describe(shape(def), () => {
      const path = concrete(def);
      const send = (token?: string) => http.send(def.method, path, token ? { token } : {});

      for (const bad of badTokens) {
        it(`${bad.name}: 401 UNAUTHORIZED`, async () => {
          const res = await send(bad.token(def));
          expect(res.status).to.equal(401);
          expect(res.body).to.deep.equal(unauthorizedBody(path));
        });
      }

      const others = SCOPES.filter((scope) => !def.scopes.includes(scope));
      if (others.length > 0) {
        it('valid without its scope: 403 Insufficient Scope naming the scopes that would do', async () => {
          const res = await send(acme.token(others));
          expect(res.status).to.equal(403);
          expect(res.body).to.deep.equal({
            type: 'FORBIDDEN',
            title: 'Insufficient Scope',
            detail: `requires one of: ${def.scopes.join(', ')}`,
            instance: path,
          });
        });
      }

      for (const scope of def.scopes) {
        it(`valid with ${scope}: admitted (neither 401 nor 403 Insufficient Scope)`, async () => {
          const res = await send(acme.token([scope]));
          expect(res.status).to.not.equal(401);
          expect(res.body?.title, JSON.stringify(res.body)).to.not.equal('Insufficient Scope');
        });
      }
    });
  }
});
