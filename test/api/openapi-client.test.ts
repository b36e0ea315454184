import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect } from 'chai';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import ts from 'typescript';
import { makeClient, makePolicy, makeReferenceData, type TestClient } from '../support/factories.js';
import { client } from '../support/http.js';
import { stack } from '../support/stack.js';

/**
 * An integrator's view of the API reference: types generated from the served `/openapi.json` with
 * openapi-typescript, a client written with openapi-fetch, compiled with `tsc --strict` and run
 * against the API. A document too loose to catch a mistake, or too strict for the real flow, fails.
 */

/** The integrator's program: token, policies, employee, endorsement, coverage, grant. */
const FLOW = `import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

export interface Credentials {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  policyNumber: string;
  employeeCode: string;
}

function ok<T>(answer: { data?: T; response: Response }, step: string): T {
  if (answer.data === undefined) throw new Error(step + ' answered ' + String(answer.response.status));
  return answer.data;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runFlow(c: Credentials) {
  const api = createClient<paths>({ baseUrl: c.baseUrl });
  const requestIds: string[] = [];
  api.use({
    onResponse({ response }) {
      requestIds.push(response.headers.get('X-Request-Id') ?? '');
    },
  });

  const issued = await api.POST('/v1/auth/token', {
    body: { client_id: c.clientId, client_secret: c.clientSecret, scopes: ['policy.all', 'employee.all'] },
  });
  const token = ok(issued, 'issueToken').payload;
  const tokenType: 'Bearer' = token.token_type;
  const expiresIn: number = token.expires_in;
  api.use({
    onRequest({ request }) {
      request.headers.set('Authorization', 'Bearer ' + token.access_token);
    },
  });

  const listed = ok(
    await api.GET('/v1/policy/', {
      params: { query: { client_id: c.clientId, status: 'POLICY_STATUS_ACTIVE', limit: 5 } },
    }),
    'listPolicies',
  ).payload;
  const policy = listed.policies.find((p) => p.policy_number === c.policyNumber);
  if (!policy) throw new Error('listPolicies: the policy is not listed');
  const unknownPolicy = await api.GET('/v1/policy/{policy_id}', { params: { path: { policy_id: 'pol_unknown' } } });

  const created = ok(
    await api.POST('/v1/client/employees', {
      body: {
        employee_id: c.employeeCode,
        name: 'Meera Iyer',
        email: c.employeeCode.toLowerCase() + '@example.com',
        phone_number: '+919812345678',
        date_of_birth: '1991-07-14',
        gender: 'GENDER_FEMALE',
        status: 'EMPLOYEE_STATUS_ACTIVE',
      },
    }),
    'createEmployee',
  ).payload;
  const employeeId = created.employee_id;

  const addition = {
    params: { header: { 'Idempotency-Key': 'add-' + c.employeeCode } },
    body: {
      employee_id: employeeId,
      policy_id: policy.id,
      type: 'ADDITION' as const,
      coverage_start_date: '2026-04-01',
      coverage_end_date: '2027-03-31',
      sum_insured: 500000,
    },
  };
  const first = await api.POST('/v1/policy/endorsements', addition);
  const retry = await api.POST('/v1/policy/endorsements', addition);
  // The operation also answers a dry run (D17, ?dry_run=true): a create's answer is the one with an id.
  const createdEndorsement = ok(first, 'createEndorsement').payload;
  if (!('endorsement_id' in createdEndorsement)) throw new Error('createEndorsement: no endorsement_id');
  const endorsementId = createdEndorsement.endorsement_id;

  let endorsement = ok(
    await api.GET('/v1/policy/endorsements/{endorsement_id}', {
      params: { path: { endorsement_id: endorsementId } },
    }),
    'getEndorsement',
  ).payload.endorsement;
  for (let i = 0; i < 200 && endorsement.status !== 'ENDORSEMENT_STATUS_APPROVED'; i++) {
    if (endorsement.status === 'ENDORSEMENT_STATUS_REJECTED') throw new Error('the insurer rejected');
    await sleep(100);
    endorsement = ok(
      await api.GET('/v1/policy/endorsements/{endorsement_id}', {
        params: { path: { endorsement_id: endorsementId } },
      }),
      'getEndorsement',
    ).payload.endorsement;
  }

  const coverage = ok(
    await api.GET('/v1/policy/coverage/{employee_id}', { params: { path: { employee_id: employeeId } } }),
    'getCoverage',
  ).payload;

  const grant = ok(
    await api.POST('/v1/policy/grant', {
      body: { employee_id: employeeId, policy_id: policy.id, start_date: '2026-12-01', end_date: '2027-03-31' },
    }),
    'createGrant',
  ).payload;
  const granted = ok(
    await api.GET('/v1/policy/grant/{request_id}', { params: { path: { request_id: grant.request_id } } }),
    'getGrant',
  ).payload.grant;

  return {
    tokenType,
    expiresIn,
    policyId: policy.id,
    unknownPolicy: { status: unknownPolicy.response.status, type: unknownPolicy.error?.type },
    employeeId,
    endorsementId,
    retry: {
      status: retry.response.status,
      replayed: retry.response.headers.get('Idempotent-Replayed'),
      endorsementId: retry.data && 'endorsement_id' in retry.data.payload ? retry.data.payload.endorsement_id : undefined,
    },
    endorsement: { status: endorsement.status, type: endorsement.type },
    coverage: coverage.map((entry) => ({ policyId: entry.policy_id, sumInsured: entry.sum_insured })),
    grant: { requestId: granted.request_id, employeeId: granted.employee_id },
    requestIds,
  };
}
`;

/** Calls an integrator could get wrong; each marked line must be a compile error. */
const MISTAKES = `import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

const api = createClient<paths>({ baseUrl: 'http://127.0.0.1' });
const employee = { employee_id: 'E-1', name: 'A', email: 'a@example.com', date_of_birth: '1990-01-31', gender: 'GENDER_FEMALE', status: 'EMPLOYEE_STATUS_ACTIVE' } as const;
const dates = { coverage_start_date: '2026-04-01', coverage_end_date: '2027-03-31' };

export async function mistakes() {
  await api.POST('/v1/client/employees', { body: { ...employee, phone_number: 9812345678 } }); // MISTAKE: a number where the phone is a string
  await api.POST('/v1/client/employees', { body: { ...employee, phone_number: '+919812345678', gender: 'MALE' } }); // MISTAKE: gender outside its enum
  await api.POST('/v1/policy/endorsements', { body: { employee_id: 'emp_1', ...dates } }); // MISTAKE: type is required
  await api.POST('/v1/policy/endorsements', { body: { employee_id: 'emp_1', type: 'ADD', ...dates } }); // MISTAKE: type outside its enum
  await api.GET('/v1/policy/', { params: { query: { client_id: 'c', limit: '10' } } }); // MISTAKE: limit is an integer
  await api.GET('/v1/policy/', { params: { query: { client_id: 'c', status: 'ACTIVE' } } }); // MISTAKE: a member status on policies
  await api.GET('/v1/policy/', { params: { query: { status: 'POLICY_STATUS_ACTIVE' } } }); // MISTAKE: client_id is required
  await api.GET('/v1/policy/{policy_id}', { params: { path: {} } }); // MISTAKE: the path parameter is required
  await api.POST('/v1/policy/grant', { params: { header: { 'Idempotency-Key': 42 } }, body: { employee_id: 'e', start_date: '2026-12-01', end_date: '2027-03-31' } }); // MISTAKE: the key is a string
  const read = await api.GET('/v1/policy/endorsements/{endorsement_id}', { params: { path: { endorsement_id: 'end_1' } } });
  return read.data?.payload.endorsement.status === 'APPROVED'; // MISTAKE: not a status the endorsement can have
}
`;

interface Compiled {
  /** `file:line: message` of every diagnostic in that file. */
  diagnostics: Map<string, string[]>;
}

/** `tsc --strict --noEmit` with module NodeNext over the given files. */
function compile(files: string[]): Compiled {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts'],
    types: ['node'],
    skipLibCheck: true,
  });
  const diagnostics = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const file = d.file?.fileName ?? '(global)';
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
    const text = `${path.basename(file)}:${line}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
    diagnostics.set(file, [...(diagnostics.get(file) ?? []), text]);
  }
  return { diagnostics };
}

const NODE_MODULES = fileURLToPath(new URL('../../node_modules', import.meta.url));

const lineOf = (text: string) => Number(/^[^:]+:(\d+):/.exec(text)?.[1]);

describe('a client generated from /openapi.json (openapi-typescript + openapi-fetch)', function () {
  this.timeout(120_000);
  let dir: string;
  let baseUrl: string;
  let c: TestClient;
  let policy: { id: string; policyNumber: string };
  let compiled: Compiled;

  before(async () => {
    const api = await stack().startApi();
    baseUrl = api.url;
    const res = await client(baseUrl).get('/openapi.json');
    expect(res.status).to.equal(200);
    c = await makeClient();
    // The simulated insurer decides at once, so the flow sees its endorsement approved.
    const reference = await makeReferenceData(c.clientId, { adapter: 'simulated' });
    policy = await makePolicy(c.clientId, { reference });

    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ghi-openapi-client-'));
    // The generated program resolves openapi-fetch and the type packages from this checkout.
    await fs.symlink(NODE_MODULES, path.join(dir, 'node_modules'), 'dir');
    await fs.writeFile(path.join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    const types = astToString(await openapiTS(res.body as OpenAPI3));
    await fs.writeFile(path.join(dir, 'schema.ts'), types);
    await fs.writeFile(path.join(dir, 'flow.ts'), FLOW);
    await fs.writeFile(path.join(dir, 'mistakes.ts'), MISTAKES);
    compiled = compile([path.join(dir, 'flow.ts'), path.join(dir, 'mistakes.ts')]);
  });

  after(async () => {
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  it('names every operation for what it does, in the types an integrator calls', async () => {
    const types = await fs.readFile(path.join(dir, 'schema.ts'), 'utf8');
    for (const name of [
      'issueToken',
      'listPolicies',
      'listPolicyMembers',
      'createEndorsement',
      'createGrant',
    ]) {
      expect(types, name).to.match(new RegExp(`^\\s*${name}: \\{`, 'm'));
    }
  });

  it('compiles the whole flow with tsc --strict without a diagnostic', () => {
    const errors = compiled.diagnostics.get(path.join(dir, 'flow.ts'));
    expect(errors, errors?.join('\n')).to.deep.equal([]);
    expect(compiled.diagnostics.get('(global)') ?? []).to.deep.equal([]);
  });

  it('refuses to compile each mistyped call', () => {
    const marked = MISTAKES.split('\n').flatMap((line, i) => (line.includes('// MISTAKE') ? [i + 1] : []));
    const errors = compiled.diagnostics.get(path.join(dir, 'mistakes.ts')) ?? [];
    const failing = [...new Set(errors.map(lineOf))].sort((a, b) => a - b);
    expect(marked).to.have.length(10);
    expect(failing, errors.join('\n')).to.deep.equal(marked);
  });

  it('runs the flow against the API and sees what the reference promised', async () => {
    const flow = (await import(pathToFileURL(path.join(dir, 'flow.ts')).href)) as {
      runFlow(credentials: object): Promise<any>;
    };
    const employeeCode = `E-GEN-${Date.now()}`;
    const seen = await flow.runFlow({
      baseUrl,
      clientId: c.clientId,
      clientSecret: c.clientSecret,
      policyNumber: policy.policyNumber,
      employeeCode,
    });
    expect(seen.tokenType).to.equal('Bearer');
    expect(seen.expiresIn).to.equal(3600);
    expect(seen.policyId).to.equal(policy.id);
    expect(seen.unknownPolicy).to.deep.equal({ status: 404, type: 'NOT_FOUND' });
    expect(seen.employeeId).to.be.a('string').and.not.equal(employeeCode);
    expect(seen.endorsementId).to.match(/^end_/);
    expect(seen.retry).to.deep.equal({ status: 200, replayed: 'true', endorsementId: seen.endorsementId });
    expect(seen.endorsement).to.deep.equal({
      status: 'ENDORSEMENT_STATUS_APPROVED',
      type: 'ENDORSEMENT_TYPE_ADDITION',
    });
    expect(seen.coverage).to.deep.equal([{ policyId: policy.id, sumInsured: 500000 }]);
    expect(seen.grant).to.deep.equal({ requestId: seen.grant.requestId, employeeId: seen.employeeId });
    expect(seen.grant.requestId).to.be.a('string').and.have.length.greaterThan(0);
    expect(seen.requestIds.length).to.be.greaterThan(6);
    for (const id of seen.requestIds) expect(id, 'X-Request-Id on every answer').to.not.equal('');
  });
});
