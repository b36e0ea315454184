/**
 * An integrator's first endorsement, through the typed client (openapi-fetch over the types
 * `npm run client:generate` makes from /openapi.json): a token, the policy, an employee, an ADDITION
 * endorsement, waiting for the insurer's decision, the employee's coverage and the health card.
 *
 *   BASE_URL=http://localhost:3000 CLIENT_ID=cli_… CLIENT_SECRET=sk_… POLICY_NUMBER=STAR/GH/2026/000123 \
 *     npm run -s example
 *
 * `npm start` prints the demo client's id and secret; STAR's simulated insurer decides within seconds.
 * The test suite runs this file against a started stack (test/examples/first-endorsement.test.ts).
 */
import createClient from 'openapi-fetch';
import type { paths } from './api-schema.js';

export interface Credentials {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  policyNumber: string;
  /** Your HR system's code for the new employee (the create is idempotent on it). */
  employeeCode: string;
  /** How long to wait for the insurer's decision. */
  waitMs?: number;
}

export interface FirstEndorsement {
  policyId: string;
  employeeId: string;
  endorsementId: string;
  status: string;
  coverage: { policyId: string; sumInsured: number; uhid: string | null }[];
  healthCard: { contentType: string | null; bytes: number; startsWithPdf: boolean };
}

/** The answer's body, or an error naming the step and the spec's error (type and detail). */
function ok<T>(answer: { data?: T; error?: unknown; response: Response }, step: string): T {
  if (answer.data !== undefined) return answer.data;
  const e = answer.error as { type?: string; detail?: string } | undefined;
  throw new Error(`${step}: HTTP ${answer.response.status} ${e?.type ?? ''} ${e?.detail ?? ''}`.trim());
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Today in India (D13: dates are calendar dates in Asia/Kolkata). */
const todayInIndia = () => new Date().toLocaleDateString('en-CA', { timeZone: 'Asia/Kolkata' });

export async function firstEndorsement(c: Credentials): Promise<FirstEndorsement> {
  const api = createClient<paths>({ baseUrl: c.baseUrl });

  // 1. A token: every answer is an envelope, the token is in payload.access_token.
  const token = ok(
    await api.POST('/v1/auth/token', {
      body: { client_id: c.clientId, client_secret: c.clientSecret, scopes: ['policy.all', 'employee.all'] },
    }),
    'issueToken',
  ).payload.access_token;
  api.use({
    onRequest({ request }) {
      request.headers.set('Authorization', `Bearer ${token}`);
    },
  });

  // 2. The policy, by its number, from the client's active policies.
  const policies = ok(
    await api.GET('/v1/policy/', {
      params: { query: { client_id: c.clientId, status: 'POLICY_STATUS_ACTIVE', limit: 50 } },
    }),
    'listPolicies',
  ).payload.policies;
  const policy = policies.find((p) => p.policy_number === c.policyNumber);
  if (!policy) throw new Error(`listPolicies: no active policy ${c.policyNumber}`);

  // 3. The employee (answers the existing id when the code is known).
  const employeeId = ok(
    await api.POST('/v1/client/employees', {
      body: {
        employee_id: c.employeeCode,
        name: 'Meera Iyer',
        email: `${c.employeeCode.toLowerCase()}@example.com`,
        phone_number: '+919812345678',
        date_of_birth: '1991-07-14',
        gender: 'GENDER_FEMALE',
        status: 'EMPLOYEE_STATUS_ACTIVE',
      },
    }),
    'createEmployee',
  ).payload.employee_id;

  // 4. The ADDITION, from today to the policy's end; the Idempotency-Key makes a retry safe.
  const created = ok(
    await api.POST('/v1/policy/endorsements', {
      params: { header: { 'Idempotency-Key': `add-${c.employeeCode}-${policy.id}` } },
      body: {
        employee_id: employeeId,
        policy_id: policy.id,
        type: 'ADDITION',
        coverage_start_date: todayInIndia(),
        coverage_end_date: policy.end_date,
        sum_insured: 300000,
      },
    }),
    'createEndorsement',
  ).payload;
  // The route answers a dry run's forecast too (`dry_run`); this request is not one.
  if (!('endorsement_id' in created)) throw new Error('createEndorsement: expected the new endorsement id');
  const endorsementId = created.endorsement_id;

  // 5. The insurer decides: read the endorsement until it is final.
  const deadline = Date.now() + (c.waitMs ?? 60_000);
  let status: string = 'ENDORSEMENT_STATUS_PENDING';
  const final = [
    'ENDORSEMENT_STATUS_APPROVED',
    'ENDORSEMENT_STATUS_REJECTED',
    'ENDORSEMENT_STATUS_CANCELLED',
  ];
  while (!final.includes(status) && Date.now() < deadline) {
    status = ok(
      await api.GET('/v1/policy/endorsements/{endorsement_id}', {
        params: { path: { endorsement_id: endorsementId } },
      }),
      'getEndorsement',
    ).payload.endorsement.status;
    if (!final.includes(status)) await sleep(500);
  }
  if (status !== 'ENDORSEMENT_STATUS_APPROVED') throw new Error(`the endorsement is ${status}`);

  // 6. Coverage, with the insurer's UHID and a signed link to the health card.
  const coverage = ok(
    await api.GET('/v1/policy/coverage/{employee_id}', { params: { path: { employee_id: employeeId } } }),
    'getCoverage',
  ).payload;
  const entry = coverage.find((e) => e.policy_id === policy.id);
  if (!entry) throw new Error('getCoverage: the policy is not among the coverage entries');

  // 7. The health card: a pre-signed link, fetched without the bearer token.
  const card = await fetch(entry.pdf_url);
  const bytes = new Uint8Array(await card.arrayBuffer());
  return {
    policyId: policy.id,
    employeeId,
    endorsementId,
    status,
    coverage: coverage.map((e) => ({
      policyId: e.policy_id,
      sumInsured: e.sum_insured,
      uhid: e.uhid ?? null,
    })),
    healthCard: {
      contentType: card.headers.get('content-type'),
      bytes: bytes.length,
      startsWithPdf: Buffer.from(bytes.subarray(0, 5)).toString('latin1') === '%PDF-',
    },
  };
}

async function main(): Promise<void> {
  const need = (name: string) => {
    const value = process.env[name];
    if (!value) throw new Error(`set ${name}`);
    return value;
  };
  const seen = await firstEndorsement({
    baseUrl: process.env.BASE_URL ?? 'http://localhost:3000',
    clientId: need('CLIENT_ID'),
    clientSecret: need('CLIENT_SECRET'),
    policyNumber: process.env.POLICY_NUMBER ?? 'STAR/GH/2026/000123',
    employeeCode: process.env.EMPLOYEE_CODE ?? `EX-${Date.now()}`,
  });
  console.log(JSON.stringify(seen, null, 2));
}

// Run as a command (npm run -s example), not when the tests import firstEndorsement.
if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  });
}
