import { expect } from 'chai';
import { allRoutes } from '../../api/routes/index.js';
import type { RouteDef } from '../../api/route.js';
import { fixedClock } from '../../domain/clock.js';
import { INSURER_SCOPES, SCOPES, type Scope } from '../../domain/scopes.js';
import {
  makeClient,
  makeInsurerClient,
  makeReferenceData,
  type TestClient,
  type TestInsurerClient,
} from '../support/factories.js';
import { client, type HttpClient } from '../support/http.js';
import { stack } from '../support/stack.js';
import { tokenService, unauthorizedBody, unsignedToken } from './auth-fixtures.js';

/** D2's table, row by row as decisions.md writes it: every endpoint a row names takes exactly its scopes. */
const D2: { endpoints: string[]; scopes: Scope[] }[] = [
  { endpoints: ['GET /v1/policy/'], scopes: ['policy.list', 'policy.all'] },
  { endpoints: ['GET /v1/policy/{policy_id}'], scopes: ['policy.get', 'policy.all'] },
  { endpoints: ['GET /v1/policy/{policy_id}/members'], scopes: ['policy.members.list', 'policy.all'] },
  {
    endpoints: [
      'GET /v1/policy/endorsements/{id}',
      'GET /v1/policy/grant/{request_id}',
      'GET /v1/policy/coverage/{employee_id}',
    ],
    scopes: ['policy.get', 'policy.all'],
  },
  {
    endpoints: [
      'POST /v1/policy/endorsements',
      'POST /v1/policy/endorsements/{id}/cancel',
      'POST /v1/policy/grant',
    ],
    scopes: ['policy.all'],
  },
  { endpoints: ['GET /v1/client/employees/profile'], scopes: ['employee.get', 'employee.all'] },
  { endpoints: ['POST /v1/client/employees'], scopes: ['employee.create', 'employee.all'] },
  {
    endpoints: ['PUT /v1/client/employees/{id}', 'PATCH /v1/client/employees/bulk'],
    scopes: ['employee.update', 'employee.all'],
  },
];

/**
 * Scopes a D2 endpoint accepts beyond its row: an extension (every D2 token still works), never a
 * scope taken away. `policy.endorsements` is the HR integrator's endorsement scope (docs/integrators/README.md, Scopes).
 */
const BEYOND_D2_ROW: Record<string, readonly Scope[]> = {
  'GET /v1/policy/endorsements/{id}': ['policy.endorsements'],
  'POST /v1/policy/endorsements': ['policy.endorsements'],
  'POST /v1/policy/endorsements/{id}/cancel': ['policy.endorsements'],
};

/**
 * The routes D2 does not name, each with its scopes and where they are decided: a route added to the
 * service must land in D2's table or here, so none gets its scopes by accident.
 */
const BEYOND_D2: Record<string, readonly Scope[] | 'public'> = {
  'GET /healthz': 'public',
  'GET /readyz': 'public',
  'POST /v1/auth/token': 'public', // spec 4.1
  'GET /v1/auth/session': SCOPES, // any valid token describes itself
  'GET /v1/policy/coverage/{}/health-card/{}.pdf': 'public', // D10: the signed link is the credential
  'POST /v1/client/employees/{}/dependents': ['employee.update', 'employee.all'], // as Update Employee
  'GET /v1/client/employees/{}/dependents': ['employee.get', 'employee.all'], // as Get Employee
  'GET /v1/audit': ['policy.all', 'employee.all'], // reads both kinds of record
  'GET /v1/policy/{}/cd-ledger': ['policy.get', 'policy.all'], // the CD account: as Get Policy
  // D17: the monthly premium statement is the CD ledger's month, read with its scopes.
  'GET /v1/policy/{}/statements/{}': ['policy.get', 'policy.all'],
  // Roster reconciliations read like the policy itself (issue 17).
  'GET /v1/policy/{}/reconciliations': ['policy.get', 'policy.all'],
  'GET /v1/policy/{}/reconciliations/{}': ['policy.get', 'policy.all'],
  // D17: the renewal reads like the policy; confirming or declining it changes the policy, as policy.all.
  'GET /v1/policy/{}/renewal': ['policy.get', 'policy.all'],
  'POST /v1/policy/{}/renewal/confirm': ['policy.all'],
  'POST /v1/policy/{}/renewal/decline': ['policy.all'],
  // Census batches (D16): a commit creates endorsements (as Create Endorsement, the requirement's
  // policy.endorsements beside it; rows that create employees need employee.create too, checked by
  // the handler); reading one or a template is as Get Endorsement.
  'POST /v1/policy/endorsements/batches': ['policy.endorsements', 'policy.all'],
  'GET /v1/policy/endorsements/batches/{}': ['policy.get', 'policy.endorsements', 'policy.all'],
  'GET /v1/policy/endorsements/batches/template.csv': ['policy.get', 'policy.endorsements', 'policy.all'],
  'GET /v1/policy/endorsements/batches/template.xlsx': ['policy.get', 'policy.endorsements', 'policy.all'],
  'GET /openapi.json': 'public',
  'GET /docs': 'public',
  // D14: called by insurers, not clients; an insurer principal holds these scopes and nothing else:
  // one to read what waits for it, one to decide.
  'POST /v1/insurer/decisions': ['insurer.decisions'],
  'GET /v1/insurer/endorsements': ['insurer.endorsements'],
  'GET /v1/insurer/endorsements/{}': ['insurer.endorsements'],
};

const PARAM = /:\w+(\([^)]*\))?\??/g;
/** `GET /v1/policy/{}`: the method and path with parameters unnamed; the spec's trailing slash kept. */
const shape = (def: RouteDef) => `${def.method} ${def.path.replace(PARAM, '{}')}`;
const specShape = (endpoint: string) => endpoint.replace(/\{\w+\}/g, '{}');
/** A concrete URL for the route: path parameters become an id nobody has. */
const concrete = (def: RouteDef) => def.path.replace(PARAM, 'zz_unknown_0001');

describe('the routes and D2’s scope table', () => {
  const routes = new Map(allRoutes().map((def) => [shape(def), def]));

  it('has a route for every endpoint of every row of D2, with exactly the row’s scopes (and its extension)', () => {
    for (const row of D2) {
      for (const endpoint of row.endpoints) {
        const def = routes.get(specShape(endpoint));
        expect(def, `${endpoint} (D2) has no route`).to.not.equal(undefined);
        expect(def!.scopes, endpoint).to.have.members([...row.scopes, ...(BEYOND_D2_ROW[endpoint] ?? [])]);
      }
    }
    const inD2 = new Set(D2.flatMap((row) => row.endpoints));
    for (const endpoint of Object.keys(BEYOND_D2_ROW)) expect(inD2.has(endpoint), endpoint).to.equal(true);
  });

  it('finds every registered route in D2’s table or among the routes D2 does not name', () => {
    const inD2 = new Set(D2.flatMap((row) => row.endpoints.map(specShape)));
    for (const [name, def] of routes) {
      if (inD2.has(name)) {
        expect(BEYOND_D2, `${name} is in D2; drop it from BEYOND_D2`).to.not.have.property(name);
        continue;
      }
      const expected = BEYOND_D2[name];
      expect(expected, `${name} is neither in D2 nor in BEYOND_D2`).to.not.equal(undefined);
      if (expected === 'public') expect(def.scopes, name).to.equal('public');
      else expect(def.scopes, name).to.have.members([...expected!]);
    }
    for (const name of Object.keys(BEYOND_D2))
      expect(routes.has(name), `${name}: no such route`).to.equal(true);
  });
});

type Protected = RouteDef & { scopes: readonly Scope[] };
const protectedRoutes = allRoutes().filter((def): def is Protected => def.scopes !== 'public');

describe('every protected route x every kind of bad token (spec 5, D2, D3)', () => {
  let http: HttpClient;
  let acme: TestClient;
  let insurer: TestInsurerClient;

  before(async () => {
    const api = await stack().startApi();
    http = client(api.url);
    acme = await makeClient();
    insurer = await makeInsurerClient((await makeReferenceData(acme.clientId)).insurerId);
  });

  it('lists protected routes, each declaring known scopes', () => {
    expect(protectedRoutes.length).to.be.greaterThan(0);
    for (const def of protectedRoutes) {
      expect(def.scopes, shape(def)).to.not.be.empty;
      for (const scope of def.scopes) expect([...SCOPES, ...INSURER_SCOPES], shape(def)).to.include(scope);
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
          const insurerRoute = 'principal' in def && def.principal === 'insurer';
          const res = await send(insurerRoute ? insurer.token(others) : acme.token(others));
          expect(res.status).to.equal(403);
          expect(res.body).to.deep.equal({
            type: 'FORBIDDEN',
            title: 'Insufficient Scope',
            detail: `requires one of: ${def.scopes.join(', ')}`,
            instance: path,
          });
        });
      }

      const forInsurers = 'principal' in def && def.principal === 'insurer';
      for (const scope of def.scopes) {
        it(`valid with ${scope}: admitted (neither 401 nor 403 Insufficient Scope)`, async () => {
          const res = await send(forInsurers ? insurer.token([scope]) : acme.token([scope]));
          expect(res.status).to.not.equal(401);
          expect(res.body?.title, JSON.stringify(res.body)).to.not.equal('Insufficient Scope');
        });
      }

      if (forInsurers) {
        it("a client's token, even one claiming the insurer's scope: 401 (not an insurer principal)", async () => {
          const res = await send(acme.token(def.scopes));
          expect(res.status).to.equal(401);
          expect(res.body).to.deep.equal(unauthorizedBody(path));
        });
      } else {
        it("an insurer principal's token: 401 (not a client), whatever it claims", async () => {
          const res = await send(insurer.token(def.scopes));
          expect(res.status).to.equal(401);
          expect(res.body).to.deep.equal(unauthorizedBody(path));
        });
      }
    });
  }
});
