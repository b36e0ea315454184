import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect } from 'chai';
import type Router from '@koa/router';
import { createApp } from '../../api/app.js';
import type { AppDeps } from '../../api/deps.js';
import { checkAnswer, envelope, routeContract } from '../../api/openapi/contract.js';
import { openApiPath, type OpenApiDocument } from '../../api/openapi/document.js';
import { isRawResponse, type RouteDef } from '../../api/route.js';
import { allRoutes } from '../../api/routes/index.js';
import { zeroCounts } from '../../data/reconciliation/rosters.js';
import { fixedClock } from '../../domain/clock.js';
import { newId } from '../../domain/ids.js';
import {
  makeClient,
  makeEmployee,
  makeInsurerClient,
  makeMember,
  makePolicy,
  sql,
  type TestClient,
} from '../support/factories.js';
import { client, type HttpClient, type HttpResult } from '../support/http.js';
import { stack } from '../support/stack.js';

const NOW = '2026-11-22T06:00:00Z';
const key = (method: string, path: string) => `${method.toUpperCase()} ${path}`;
const routeKey = (def: RouteDef) => key(def.method, openApiPath(def.path));

type Operation = {
  operationId: string;
  security: Record<string, string[]>[];
  'x-scopes': string[];
  responses: Record<string, { content?: Record<string, { schema: object; examples?: object }> }>;
};
const operations = (doc: OpenApiDocument) =>
  Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item as Record<string, Operation>).map(([method, op]) => ({ key: key(method, path), op })),
  );

/** Every (method, path) the Koa router of a real app has mounted. */
function mountedRoutes(deps: AppDeps): string[] {
  const app = createApp(deps);
  const dispatch = app.middleware.find((m) => 'router' in m) as unknown as { router: Router };
  return dispatch.router.stack.flatMap((layer) =>
    layer.methods.filter((m) => m !== 'HEAD').map((m) => key(m, openApiPath(String(layer.path)))),
  );
}

describe('OpenAPI document (GET /openapi.json)', () => {
  let http: HttpClient;
  let doc: OpenApiDocument;
  let deps: AppDeps;

  before(async () => {
    const api = await stack().startApi();
    deps = api.deps;
    http = client(api.url);
    const res = await http.get('/openapi.json');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    doc = res.body as OpenApiDocument;
  });

  it('is OpenAPI 3.1 with the bearer scheme and the server this API answers at', () => {
    expect(doc.openapi).to.equal('3.1.0');
    expect(doc.components?.securitySchemes?.bearerAuth).to.include({ type: 'http', scheme: 'bearer' });
    expect(doc.servers?.[0]?.url).to.equal(stack().config.baseUrl);
  });

  it('lists exactly the routes the router mounts, and each route once', () => {
    const documented = operations(doc).map((o) => o.key);
    expect(new Set(documented).size).to.equal(documented.length);
    expect([...documented].sort()).to.deep.equal(mountedRoutes(deps).sort());
  });

  it('names every operation on its route definition, uniquely, for what it does', () => {
    const ids = operations(doc).map((o) => o.op.operationId);
    expect(
      ids.every((id) => /^[a-z][A-Za-z]+$/.test(id)),
      ids.join(', '),
    ).to.equal(true);
    expect(new Set(ids).size, 'unique operationIds').to.equal(ids.length);
    for (const def of allRoutes()) {
      expect(def.operationId, routeKey(def)).to.match(/^[a-z][A-Za-z]+$/);
      expect(operations(doc).find((o) => o.key === routeKey(def))!.op.operationId).to.equal(def.operationId);
    }
    const named = Object.fromEntries(operations(doc).map((o) => [o.key, o.op.operationId]));
    expect(named).to.include({
      'POST /v1/auth/token': 'issueToken',
      'GET /v1/policy/': 'listPolicies',
      'GET /v1/policy/{policy_id}': 'getPolicy',
      'GET /v1/policy/{policy_id}/members': 'listPolicyMembers',
      'GET /v1/policy/{policy_id}/cd-ledger': 'listPolicyCdLedger',
      'GET /v1/policy/{policy_id}/statements/{month}': 'getPolicyPremiumStatement',
      'GET /v1/policy/{policy_id}/reconciliations': 'listPolicyReconciliations',
      'GET /v1/policy/{policy_id}/reconciliations/{reconciliation_id}': 'getPolicyReconciliation',
      'POST /v1/client/employees': 'createEmployee',
      'GET /v1/client/employees/profile': 'getEmployeeProfile',
      'PUT /v1/client/employees/{employee_id}': 'updateEmployee',
      'PATCH /v1/client/employees/bulk': 'bulkUpdateEmployees',
      'POST /v1/policy/endorsements': 'createEndorsement',
      'POST /v1/policy/endorsements/batches': 'createEndorsementBatch',
      'GET /v1/policy/endorsements/{endorsement_id}': 'getEndorsement',
      'GET /v1/policy/coverage/{employee_id}': 'getCoverage',
      'POST /v1/policy/grant': 'createGrant',
      'PUT /v1/client/employees/bulk': 'bulkUpdateEmployeesPutNotAllowed',
    });
  });

  it('describes every parameter, types limit as a bounded integer and filters as enums', () => {
    type Param = { name: string; in: string; description?: string; schema: Record<string, unknown> };
    const params = operations(doc).flatMap(({ key: k, op }) =>
      ((op as unknown as { parameters?: Param[] }).parameters ?? []).map((p) => ({ key: k, ...p })),
    );
    for (const p of params)
      expect(p.description, `${p.key} ${p.in} ${p.name}`).to.be.a('string').and.not.empty;
    const limits = params.filter((p) => p.name === 'limit');
    expect(limits.map((p) => p.key).sort()).to.deep.equal([
      'GET /v1/audit',
      'GET /v1/insurer/endorsements',
      'GET /v1/policy/',
      'GET /v1/policy/endorsements/batches/{batch_id}',
      'GET /v1/policy/{policy_id}/cd-ledger',
      'GET /v1/policy/{policy_id}/members',
      'GET /v1/policy/{policy_id}/reconciliations',
      'GET /v1/policy/{policy_id}/reconciliations/{reconciliation_id}',
    ]);
    for (const p of limits) {
      expect(p.schema, p.key).to.include({ type: 'integer', minimum: 1, maximum: 100, default: 10 });
    }
    const enumOf = (k: string, name: string) =>
      params.find((p) => p.key === k && p.name === name)?.schema.enum;
    expect(enumOf('GET /v1/policy/', 'status')).to.deep.equal([
      'POLICY_STATUS_ACTIVE',
      'POLICY_STATUS_INACTIVE',
      'POLICY_STATUS_SUSPENDED',
    ]);
    expect(enumOf('GET /v1/policy/{policy_id}/members', 'status')).to.deep.equal([
      'ACTIVE',
      'INACTIVE',
      'SUSPENDED',
    ]);
    expect(enumOf('GET /v1/audit', 'entity')).to.deep.equal([
      'employee',
      'endorsement',
      'grant',
      'policy_member',
    ]);
    const idempotencyKeys = params.filter((p) => p.in === 'header' && p.name === 'Idempotency-Key');
    const honouring = allRoutes().filter((r) => r.scopes !== 'public' && r.idempotencyKey);
    expect(idempotencyKeys.map((p) => p.key).sort()).to.deep.equal(honouring.map(routeKey).sort());
    expect(idempotencyKeys.map((p) => p.key)).to.include.members([
      'POST /v1/policy/endorsements',
      'POST /v1/policy/grant',
    ]);
  });

  it('requires the fields an endorsement cannot do without, and lists its types', () => {
    const { op } = operations(doc).find((o) => o.key === 'POST /v1/policy/endorsements')!;
    const schema = (op as any).requestBody.content['application/json'].schema;
    // The dates are required but for a REINSTATEMENT (D17), whose DELETION implies them: their
    // descriptions say so.
    expect(schema.required).to.have.members(['employee_id', 'type']);
    for (const date of ['coverage_start_date', 'coverage_end_date']) {
      expect(schema.properties[date].description).to.match(/^Required but for a REINSTATEMENT/);
    }
    expect(schema.properties.type.enum).to.include.members([
      'ADDITION',
      'DELETION',
      'MODIFICATION',
      'REINSTATEMENT',
      'ENDORSEMENT_TYPE_REINSTATEMENT',
    ]);
  });

  it('declares X-Request-Id on every answer, Retry-After on 429 and 503, Idempotent-Replayed on replays', () => {
    type Answer = { headers?: Record<string, { $ref: string }> };
    const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });
    const headers = (doc.components as { headers?: Record<string, object> }).headers ?? {};
    expect(headers['Retry-After']).to.deep.include({ schema: { type: 'integer', minimum: 0 } });
    for (const { key: k, op } of operations(doc)) {
      for (const [status, answer] of Object.entries(op.responses as Record<string, Answer>)) {
        expect(answer.headers?.['X-Request-Id'], `${k} ${status}`).to.deep.equal(ref('X-Request-Id'));
        if (status === '429' || status === '503') {
          expect(answer.headers?.['Retry-After'], `${k} ${status}`).to.deep.equal(ref('Retry-After'));
        }
      }
    }
    const replayed = operations(doc)
      .filter((o) => (o.op.responses['200'] as Answer | undefined)?.headers?.['Idempotent-Replayed'])
      .map((o) => o.key);
    expect(replayed.sort()).to.deep.equal([
      'POST /v1/policy/endorsements',
      'POST /v1/policy/endorsements/batches',
      'POST /v1/policy/grant',
    ]);
  });

  it('finds an answer without its documented headers out of contract', () => {
    const def = allRoutes().find((r) => r.operationId === 'getPolicy')!;
    const body = {
      type: 'SERVICE_UNAVAILABLE',
      title: 'Service Unavailable',
      detail: '',
      instance: '/v1/policy/x',
    };
    expect(checkAnswer(def, 503, body, { 'x-request-id': 'r1', 'retry-after': '5' })).to.equal(null);
    expect(checkAnswer(def, 503, body, { 'x-request-id': 'r1' })?.problem).to.contain('Retry-After');
    expect(checkAnswer(def, 503, body, { 'retry-after': '5' })?.problem).to.contain('X-Request-Id');
    expect(checkAnswer(def, 503, body, { 'x-request-id': 'r1', 'retry-after': 'soon' })?.problem).to.contain(
      'retry-after',
    );
  });

  it('documents PUT on the bulk path as 405 with Allow: PATCH', () => {
    const found = operations(doc).find((o) => o.key === 'PUT /v1/client/employees/bulk');
    expect(found).to.not.equal(undefined);
    expect(Object.keys(found!.op.responses)).to.deep.equal(['405']);
    const answer = found!.op.responses['405'] as any;
    expect(answer).to.have.nested.property('headers.Allow');
    expect(answer.content['application/json'].examples['Method Not Allowed'].value).to.include({
      type: 'METHOD_NOT_ALLOWED',
      detail: 'allowed: PATCH',
    });
  });

  it('declares a response schema for every route', () => {
    const without = allRoutes()
      .filter((r) => !r.response)
      .map(routeKey);
    expect(without, 'routes without `response` in their route() definition').to.deep.equal([]);
  });

  it('states the scopes of every protected route (D2) as x-scopes and as bearer alternatives', () => {
    for (const def of allRoutes()) {
      const { op } = operations(doc).find((o) => o.key === routeKey(def))!;
      if (def.scopes === 'public') {
        expect(op.security, routeKey(def)).to.deep.equal([]);
        expect(op['x-scopes'], routeKey(def)).to.deep.equal([]);
      } else {
        expect(op['x-scopes'], routeKey(def)).to.deep.equal([...def.scopes]);
        expect(op.security, routeKey(def)).to.deep.equal(def.scopes.map((s) => ({ bearerAuth: [s] })));
        for (const status of ['401', '403', '500', '503']) {
          expect(op.responses, `${routeKey(def)} ${status}`).to.have.property(status);
        }
      }
    }
  });

  /** Spec part 7 and the decisions, error by error, on the operations that answer it. */
  const SPEC_ERRORS: [status: number, type: string, title: string, routes: string[]][] = [
    [401, 'A4001', 'Invalid Authentication Credentials', ['POST /v1/auth/token']],
    [429, 'A4290', 'Rate Limit Exceeded', ['POST /v1/auth/token']],
    [500, 'E5000', 'An unexpected error occurred', ['POST /v1/auth/token', 'GET /v1/policy/']],
    [403, 'FORBIDDEN', 'Forbidden', ['GET /v1/policy/']],
    [
      404,
      'NOT_FOUND',
      'Policy Not Found',
      [
        'GET /v1/policy/{policy_id}',
        'GET /v1/policy/{policy_id}/members',
        'GET /v1/policy/{policy_id}/cd-ledger',
        'GET /v1/policy/{policy_id}/statements/{month}',
        'POST /v1/policy/endorsements',
        'POST /v1/policy/grant',
      ],
    ],
    [
      404,
      'NOT_FOUND',
      'Employee Not Found',
      [
        'GET /v1/client/employees/profile',
        'PUT /v1/client/employees/{employee_id}',
        'POST /v1/policy/grant',
        'POST /v1/policy/endorsements',
      ],
    ],
    [
      404,
      'NOT_FOUND',
      'Endorsement Not Found',
      [
        'GET /v1/policy/endorsements/{endorsement_id}',
        'POST /v1/policy/endorsements/{endorsement_id}/cancel',
      ],
    ],
    [404, 'NOT_FOUND', 'Employee Not Covered', ['GET /v1/policy/coverage/{employee_id}']],
    [400, 'MISSING_EMPLOYEE_ID', 'Employee ID is required', ['GET /v1/client/employees/profile']],
    [
      400,
      'VALIDATION_ERROR',
      'Validation Failed',
      [
        'POST /v1/client/employees',
        'PUT /v1/client/employees/{employee_id}',
        'PATCH /v1/client/employees/bulk',
        'POST /v1/policy/grant',
        'GET /v1/policy/',
      ],
    ],
    [413, 'PAYLOAD_TOO_LARGE', 'Too Many Employees', ['PATCH /v1/client/employees/bulk']],
    [400, 'MISSING_ADDITION_DETAILS', 'Missing addition details', ['POST /v1/policy/endorsements']],
    [400, 'INVALID_ENDORSEMENT_TYPE', 'Invalid endorsement type', ['POST /v1/policy/endorsements']],
    [409, 'CONFLICT', 'Endorsement In Progress', ['POST /v1/policy/endorsements']],
    [
      409,
      'CONFLICT',
      'Endorsement Already Decided',
      ['POST /v1/policy/endorsements/{endorsement_id}/cancel'],
    ],
    [
      403,
      'FORBIDDEN',
      'Link Expired or Invalid',
      ['GET /v1/policy/coverage/{employee_id}/health-card/{policy_id}.pdf'],
    ],
    [401, 'UNAUTHORIZED', 'Unauthorized', ['GET /v1/policy/{policy_id}']],
    [403, 'FORBIDDEN', 'Insufficient Scope', ['GET /v1/policy/{policy_id}']],
    [503, 'SERVICE_UNAVAILABLE', 'Service Unavailable', ['POST /v1/policy/endorsements']],
  ];

  for (const [status, type, title, routes] of SPEC_ERRORS) {
    it(`documents ${status} ${type} "${title}" where it occurs`, () => {
      for (const route of routes) {
        const found = operations(doc).find((o) => o.key === route);
        expect(found, route).to.not.equal(undefined);
        const examples = Object.values(
          found!.op.responses[String(status)]?.content?.['application/json']?.examples ?? {},
        ) as { value: { type: string; title: string } }[];
        const pairs = examples.map((e) => `${e.value.type} ${e.value.title}`);
        expect(pairs, `${route} ${status}`).to.include(`${type} ${title}`);
      }
    });
  }
});

describe('responses validate against the OpenAPI document: one success per route', () => {
  const clock = fixedClock(NOW);
  let http: HttpClient;
  let doc: OpenApiDocument;
  let c: TestClient;
  let token: string;
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });

  before(async () => {
    const api = await stack().startApi({ clock });
    http = client(api.url);
    doc = (await http.get('/openapi.json')).body as OpenApiDocument;
    c = await makeClient();
    token = c.token(undefined, clock);
  });

  /** The document's 200 schema of one operation, checked with a JSON Schema 2020-12 validator. */
  function validateWithDocument(route: string, contentType: string, body: unknown): void {
    const { op } = operations(doc).find((o) => o.key === route)!;
    const schema = op.responses['200']?.content?.[contentType]?.schema;
    expect(schema, `${route}: 200 ${contentType} schema`).to.not.equal(undefined);
    const validate = ajv.compile({ ...schema, components: doc.components });
    const valid = validate(body);
    expect(valid, `${route}: ${ajv.errorsText(validate.errors)}`).to.equal(true);
  }

  it("refuses, by the document's JSON Schema, bodies that break it", () => {
    const { op } = operations(doc).find((o) => o.key === 'GET /v1/policy/{policy_id}')!;
    const validate = ajv.compile({
      ...op.responses['200']!.content!['application/json']!.schema,
      components: doc.components,
    });
    expect(validate({ payload: { policy: { id: 1 }, message: 'x', success: true } })).to.equal(false);
    expect(validate({ policy: {} })).to.equal(false);
    const { op: token } = operations(doc).find((o) => o.key === 'POST /v1/auth/token')!;
    const tokenSchema = ajv.compile({
      ...token.responses['200']!.content!['application/json']!.schema,
      components: doc.components,
    });
    expect(
      tokenSchema({ payload: { access_token: 'a.b.c', expires_in: 3600, token_type: 'Bearer' } }),
    ).to.equal(true);
    expect(
      tokenSchema({ payload: { access_token: 'a.b.c', expires_in: 60, token_type: 'Bearer' } }),
    ).to.equal(false);
  });

  it('answers every route with a body its documented schema accepts', async function () {
    this.timeout(60_000);
    const policy = await makePolicy(c.clientId);
    const covered = await makeEmployee(c.clientId);
    await makeMember(c.clientId, policy.id, covered);
    const joiner = await makeEmployee(c.clientId);
    const granted = await makeEmployee(c.clientId);
    const reconciliationId = newId('reconciliation');
    await sql(
      `insert into roster_reconciliations (id, client_id, policy_id, source, run_key, status, counts, completed_at)
       values (?, ?, ?, 'command', 'sha256:x', 'completed', ?::jsonb, now())`,
      [reconciliationId, c.clientId, policy.id, JSON.stringify(zeroCounts())],
    );
    // D17: an open renewal of each of two terms, one to confirm and one to decline.
    const { insurerId, tpaId, productId } = policy;
    const declining = await makePolicy(c.clientId, { reference: { insurerId, tpaId, productId } });
    for (const renewed of [policy.id, declining.id]) {
      await sql(
        `insert into policy_renewals (id, client_id, policy_id, term_start, term_end, status)
         values (?, ?, ?, '2027-04-01', '2028-03-31', 'DRAFT')`,
        [newId('renewal'), c.clientId, renewed],
      );
    }
    const auth = { token };
    const state: Record<string, string> = {};
    const send = async (res: Promise<HttpResult>, save?: (body: any) => void) => {
      const answer = await res;
      if (answer.status === 200 && save) save(answer.body.payload);
      return answer;
    };

    // In dependency order: what is created first is read, changed or cancelled after.
    const calls: [string, () => Promise<HttpResult>][] = [
      ['GET /healthz', () => http.get('/healthz')],
      ['GET /readyz', () => http.get('/readyz')],
      [
        'POST /v1/auth/token',
        () =>
          http.post('/v1/auth/token', {
            body: { client_id: c.clientId, client_secret: c.clientSecret, scopes: ['policy.get'] },
          }),
      ],
      ['GET /v1/auth/session', () => http.get('/v1/auth/session', auth)],
      ['GET /v1/policy/', () => http.get(`/v1/policy/?client_id=${c.clientId}`, auth)],
      ['GET /v1/policy/{policy_id}', () => http.get(`/v1/policy/${policy.id}`, auth)],
      ['GET /v1/policy/{policy_id}/members', () => http.get(`/v1/policy/${policy.id}/members`, auth)],
      ['GET /v1/policy/{policy_id}/cd-ledger', () => http.get(`/v1/policy/${policy.id}/cd-ledger`, auth)],
      [
        'GET /v1/policy/{policy_id}/statements/{month}',
        () => http.get(`/v1/policy/${policy.id}/statements/2026-11`, auth),
      ],
      ['GET /v1/policy/{policy_id}/renewal', () => http.get(`/v1/policy/${policy.id}/renewal`, auth)],
      [
        'POST /v1/policy/{policy_id}/renewal/confirm',
        () => http.post(`/v1/policy/${policy.id}/renewal/confirm`, auth),
      ],
      [
        'POST /v1/policy/{policy_id}/renewal/decline',
        () => http.post(`/v1/policy/${declining.id}/renewal/decline`, auth),
      ],
      [
        'GET /v1/policy/{policy_id}/reconciliations',
        () => http.get(`/v1/policy/${policy.id}/reconciliations`, auth),
      ],
      [
        'GET /v1/policy/{policy_id}/reconciliations/{reconciliation_id}',
        () => http.get(`/v1/policy/${policy.id}/reconciliations/${reconciliationId}`, auth),
      ],
      [
        'POST /v1/client/employees',
        () =>
          send(
            http.post('/v1/client/employees', {
              ...auth,
              body: {
                employee_id: `E-${Date.now()}`,
                name: 'Asha Rao',
                email: `asha.${Date.now()}@example.com`,
                phone_number: '+919812345678',
                date_of_birth: '1990-01-31',
                gender: 'GENDER_FEMALE',
                status: 'EMPLOYEE_STATUS_ACTIVE',
              },
            }),
            (p) => (state.employeeId = p.employee_id),
          ),
      ],
      [
        'GET /v1/client/employees/profile',
        () => http.get(`/v1/client/employees/profile?employee_id=${state.employeeId}`, auth),
      ],
      [
        'PUT /v1/client/employees/{employee_id}',
        () =>
          http.put(`/v1/client/employees/${state.employeeId}`, { ...auth, body: { designation: 'Lead' } }),
      ],
      [
        'PATCH /v1/client/employees/bulk',
        () =>
          http.patch('/v1/client/employees/bulk', {
            ...auth,
            body: { employees: [{ emp_id: state.employeeId, last_active_date: '2026-11-20' }] },
          }),
      ],
      [
        'POST /v1/client/employees/{employee_id}/dependents',
        () =>
          http.post(`/v1/client/employees/${state.employeeId}/dependents`, {
            ...auth,
            body: {
              name: 'Ravi Rao',
              relationship: 'SPOUSE',
              date_of_birth: '1989-03-02',
              gender: 'GENDER_MALE',
            },
          }),
      ],
      [
        'GET /v1/client/employees/{employee_id}/dependents',
        () => http.get(`/v1/client/employees/${state.employeeId}/dependents`, auth),
      ],
      [
        'POST /v1/policy/endorsements',
        () =>
          send(
            http.post('/v1/policy/endorsements', {
              ...auth,
              body: {
                employee_id: joiner.id,
                policy_id: policy.id,
                type: 'ADDITION',
                coverage_start_date: '2026-12-01',
                coverage_end_date: '2027-03-31',
              },
            }),
            (p) => (state.endorsementId = p.endorsement_id),
          ),
      ],
      [
        'GET /v1/policy/endorsements/{endorsement_id}',
        () => http.get(`/v1/policy/endorsements/${state.endorsementId}`, auth),
      ],
      [
        'POST /v1/policy/endorsements/{endorsement_id}/cancel',
        () => http.post(`/v1/policy/endorsements/${state.endorsementId}/cancel`, auth),
      ],
      [
        'POST /v1/policy/endorsements/batches',
        () =>
          http.post('/v1/policy/endorsements/batches?dry_run=true', {
            ...auth,
            body: { rows: [{ employee_code: 'E-census', action: 'delete', effective_date: '2026-12-01' }] },
          }),
      ],
      [
        'GET /v1/policy/endorsements/batches/{batch_id}',
        async () => {
          const committed = await http.post('/v1/policy/endorsements/batches', {
            ...auth,
            body: { rows: [{ employee_code: 'E-census', action: 'delete', effective_date: '2026-12-01' }] },
          });
          return http.get(`/v1/policy/endorsements/batches/${committed.body.payload.batch_id}`, auth);
        },
      ],
      [
        'GET /v1/policy/endorsements/batches/template.csv',
        () => http.get('/v1/policy/endorsements/batches/template.csv', auth),
      ],
      [
        'GET /v1/policy/endorsements/batches/template.xlsx',
        () => http.get('/v1/policy/endorsements/batches/template.xlsx', auth),
      ],
      [
        'GET /v1/policy/coverage/{employee_id}',
        () => send(http.get(`/v1/policy/coverage/${covered.id}`, auth), (p) => (state.pdfUrl = p[0].pdf_url)),
      ],
      [
        'GET /v1/policy/coverage/{employee_id}/health-card/{policy_id}.pdf',
        () => {
          const url = new URL(state.pdfUrl!);
          return http.get(url.pathname + url.search);
        },
      ],
      [
        'POST /v1/policy/grant',
        () =>
          send(
            http.post('/v1/policy/grant', {
              ...auth,
              body: { employee_id: granted.id, start_date: '2026-12-01', end_date: '2027-03-31' },
            }),
            (p) => (state.requestId = p.request_id),
          ),
      ],
      ['GET /v1/policy/grant/{request_id}', () => http.get(`/v1/policy/grant/${state.requestId}`, auth)],
      ['GET /v1/audit', () => http.get('/v1/audit?entity=employee', auth)],
      [
        'GET /v1/insurer/endorsements',
        async () =>
          http.get('/v1/insurer/endorsements?limit=5', {
            token: (await makeInsurerClient(policy.insurerId)).token(undefined, clock),
          }),
      ],
      [
        'GET /v1/insurer/endorsements/{endorsement_id}',
        async () =>
          http.get(`/v1/insurer/endorsements/${state.endorsementId}`, {
            token: (await makeInsurerClient(policy.insurerId)).token(undefined, clock),
          }),
      ],
      [
        'POST /v1/insurer/decisions',
        async () =>
          http.post('/v1/insurer/decisions', {
            token: (await makeInsurerClient(policy.insurerId)).token(undefined, clock),
            body: { decisions: [{ endorsement_id: state.endorsementId, decision: 'APPROVED' }] },
          }),
      ],
      ['GET /openapi.json', () => http.get('/openapi.json')],
      ['GET /docs', () => http.get('/docs')],
    ];

    const byKey = new Map(allRoutes().map((def) => [routeKey(def), def]));
    expect(calls.map(([k]) => k).sort(), 'one call per route').to.deep.equal([...byKey.keys()].sort());

    for (const [route, call] of calls) {
      const def = byKey.get(route)!;
      const res = await call();
      expect(res.status, `${route}: ${res.text.slice(0, 300)}`).to.equal(200);
      const success = routeContract(def).success;
      if (!success) throw new Error(`${route}: the route declares no response schema`);
      expect(res.headers.get('content-type'), route).to.contain(success.contentType);
      if (success.contentType !== 'application/json') {
        expect(res.text.length, route).to.be.greaterThan(0);
        continue;
      }
      const body: unknown = res.body;
      const schema = def.response && !isRawResponse(def.response) ? envelope(def.response) : success.body;
      const parsed = schema.safeParse(body);
      expect(parsed.success, `${route}: ${parsed.error?.message}`).to.equal(true);
      validateWithDocument(route, success.contentType, body);
    }
  });
});
