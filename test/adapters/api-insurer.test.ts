import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import { expect } from 'chai';
import { createApiAdapter } from '../../adapters/api-insurer/adapter.js';
import type { ApiAdapterSettings } from '../../domain/insurer-exchange/adapter-settings.js';
import {
  INSURER_REFUSED,
  INSURER_UNAVAILABLE,
  type InsurerSubmission,
} from '../../domain/insurer-exchange/submission.js';
import { startInsurerServer, type InsurerAnswer, type InsurerServer } from '../support/insurer-server.js';

const SECRET = `whsec_${randomBytes(32).toString('base64url')}`;
const SECRET_ENV = 'ACME_SIGNING_SECRET';

function submission(baseUrl: string, settings: Partial<ApiAdapterSettings> = {}): InsurerSubmission {
  return {
    adapter: 'api',
    adapterSettings: {
      base_url: baseUrl,
      signing_secret_env: SECRET_ENV,
      timeout_ms: 2_000,
      sla_days: 14,
      ...settings,
    },
    endorsementId: 'end_01JAPITEST',
    clientId: 'cli_1',
    policyId: 'pol_1',
    policyNumber: 'ACME/GH/2026/1',
    insurerId: 'ins_1',
    insurerCode: 'ACME',
    employeeId: 'emp_1',
    employeeCode: 'E-100',
    type: 'ENDORSEMENT_TYPE_ADDITION',
    coverageStartDate: '2026-04-01',
    coverageEndDate: '2027-03-31',
    sumInsured: '500000.00',
    premiumImpact: '7300.00',
    members: [
      { relationship: 'SELF', name: 'Asha Verma', dateOfBirth: '1988-05-17', gender: 'FEMALE' },
      { relationship: 'CHILD', name: 'Ira Verma', dateOfBirth: '2019-11-02', gender: 'OTHER' },
    ],
  };
}

const adapter = createApiAdapter({ secret: (name) => (name === SECRET_ENV ? SECRET : undefined) });

/** The adapter's failure, which the test expects. */
async function failure(p: Promise<unknown>): Promise<ApplicationFailure> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(ApplicationFailure);
    return err as ApplicationFailure;
  }
  throw new Error('the call succeeded');
}

describe('api insurer adapter', () => {
  let server: InsurerServer | null = null;
  const start = async (answer?: (n: number) => InsurerAnswer) => {
    server = await startInsurerServer(SECRET, answer && ((_, n) => answer(n)));
    return server;
  };
  afterEach(async () => {
    await server?.close();
    server = null;
  });

  it('POSTs the submission as signed JSON with the endorsement id as its idempotency key', async () => {
    const insurer = await start();
    await adapter.submit(submission(insurer.url));
    expect(insurer.calls).to.have.length(1);
    const [call] = insurer.calls;
    expect(call).to.include({
      method: 'POST',
      path: '/insurer-api/endorsements',
      idempotencyKey: 'end_01JAPITEST',
      contentType: 'application/json',
      verified: true,
    });
    expect(call!.body).to.deep.equal({
      id: 'end_01JAPITEST',
      kind: 'submission',
      endorsement: {
        id: 'end_01JAPITEST',
        type: 'ADDITION',
        policy_number: 'ACME/GH/2026/1',
        employee_id: 'E-100',
        coverage_start_date: '2026-04-01',
        coverage_end_date: '2027-03-31',
        sum_insured: '500000.00',
        premium_impact: '7300.00',
      },
      members: [
        { relationship: 'SELF', name: 'Asha Verma', date_of_birth: '1988-05-17', gender: 'FEMALE' },
        { relationship: 'CHILD', name: 'Ira Verma', date_of_birth: '2019-11-02', gender: 'OTHER' },
      ],
    });
  });

  it('POSTs a withdrawal to the endorsement, with its own key and no personal data', async () => {
    const insurer = await start();
    await adapter.withdraw(submission(insurer.url));
    const [call] = insurer.calls;
    expect(call).to.include({
      path: '/insurer-api/endorsements/end_01JAPITEST/withdrawal',
      idempotencyKey: 'end_01JAPITEST:withdrawal',
      verified: true,
    });
    expect(call!.body.kind).to.equal('withdrawal');
    expect(call!.body).to.not.have.property('members');
    expect(call!.raw).to.not.contain('Asha');
  });

  it('an insurer that checks the signature with another secret refuses the call (not retried)', async () => {
    server = await startInsurerServer(`whsec_${randomBytes(32).toString('base64url')}`);
    const err = await failure(adapter.submit(submission(server.url)));
    expect(err.type).to.equal(INSURER_REFUSED);
    expect(err.nonRetryable).to.equal(true);
    expect(err.message).to.contain('HTTP 401').and.contain('bad signature');
  });

  it('a 400 is refused for good, with the insurer detail and without the personal data sent', async () => {
    const insurer = await start(() => ({
      status: 400,
      body: { detail: 'policy ACME/GH/2026/1 is not active' },
    }));
    const err = await failure(adapter.submit(submission(insurer.url)));
    expect(err.type).to.equal(INSURER_REFUSED);
    expect(err.nonRetryable).to.equal(true);
    expect(err.message).to.equal(
      'submission of end_01JAPITEST to insurer ACME: insurer refused (HTTP 400): policy ACME/GH/2026/1 is not active',
    );
    expect(err.message).to.not.contain('Asha');
  });

  it('classifies answers: other 4xx refused; 408, 429 and 5xx retried', async () => {
    const outcomes: Record<number, [string, boolean]> = {};
    for (const status of [401, 404, 409, 422, 408, 429, 500, 502, 503]) {
      const insurer = await start(() => ({ status, body: { message: `status ${status}` } }));
      const err = await failure(adapter.submit(submission(insurer.url)));
      outcomes[status] = [err.type!, Boolean(err.nonRetryable)];
      await insurer.close();
      server = null;
    }
    const refusedForGood: [string, boolean] = [INSURER_REFUSED, true];
    const retried: [string, boolean] = [INSURER_UNAVAILABLE, false];
    expect(outcomes).to.deep.equal({
      401: refusedForGood,
      404: refusedForGood,
      409: refusedForGood,
      422: refusedForGood,
      408: retried,
      429: retried,
      500: retried,
      502: retried,
      503: retried,
    });
  });

  it('honours a Retry-After on 429 as the next attempt delay', async () => {
    const insurer = await start(() => ({ status: 429, headers: { 'Retry-After': '7' } }));
    const err = await failure(adapter.submit(submission(insurer.url)));
    expect(err.nextRetryDelay).to.equal('7 seconds');
  });

  it('an insurer that does not answer in time is retried, and the call ends at the timeout', async () => {
    const insurer = await start(() => 'hang');
    const began = Date.now();
    const err = await failure(adapter.submit(submission(insurer.url, { timeout_ms: 300 })));
    expect(Date.now() - began).to.be.within(250, 2_000);
    expect(err.type).to.equal(INSURER_UNAVAILABLE);
    expect(err.nonRetryable).to.equal(false);
    expect(err.message).to.equal(
      'submission of end_01JAPITEST to insurer ACME: insurer did not answer within 300 ms',
    );
  });

  it('a refused connection is retried', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const err = await failure(adapter.submit(submission(`http://127.0.0.1:${port}`)));
    expect(err.type).to.equal(INSURER_UNAVAILABLE);
    expect(err.nonRetryable).to.equal(false);
    expect(err.message).to.contain('unreachable (ECONNREFUSED)');
  });

  it('a retry after a 503 sends the same id, key and body, freshly signed', async () => {
    const insurer = await start((n) => (n === 1 ? { status: 503 } : { status: 202 }));
    const s = submission(insurer.url);
    await failure(adapter.submit(s));
    await adapter.submit(s);
    expect(insurer.calls).to.have.length(2);
    const [first, second] = insurer.calls;
    expect(second!.idempotencyKey).to.equal(first!.idempotencyKey).and.equal('end_01JAPITEST');
    expect(second!.body.id).to.equal(first!.body.id);
    expect(second!.raw).to.equal(first!.raw);
    expect(second!.verified).to.equal(true);
  });

  it('without its signing secret in the environment nothing is sent, and the call is retried', async () => {
    const insurer = await start();
    const missing = createApiAdapter({ secret: () => undefined });
    const err = await failure(missing.submit(submission(insurer.url)));
    expect(err.type).to.equal(INSURER_UNAVAILABLE);
    expect(err.message).to.contain('ACME_SIGNING_SECRET is not set');
    const short = createApiAdapter({ secret: () => 'too-short' });
    expect((await failure(short.submit(submission(insurer.url)))).message).to.contain('at least 32 bytes');
    expect(insurer.calls).to.have.length(0);
  });

  it('does not follow a redirect with the body', async () => {
    const insurer = await start(() => ({
      status: 307,
      headers: { Location: 'https://elsewhere.example.com/' },
    }));
    const err = await failure(adapter.submit(submission(insurer.url)));
    expect(err.type).to.equal(INSURER_UNAVAILABLE);
    expect(err.message).to.contain('HTTP 307');
    expect(insurer.calls).to.have.length(1);
  });
});
