import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { trustedProxies } from '../../api/auth/client-address.js';
import { TOKEN_REQUEST_LIMIT } from '../../data/tokens.js';
import { loadConfig } from '../../config/index.js';
import { fixedClock } from '../../domain/clock.js';
import { makeClient, sql, type TestClient } from '../support/factories.js';
import type { HttpClient, HttpResult } from '../support/http.js';
import { stack } from '../support/stack.js';
import { requestToken, startProbeApi, type ProbeApi } from './auth-fixtures.js';

const HOUR_MS = 60 * 60 * 1000;
/** The shipped budgets (the shared test stack raises them: every test calls from 127.0.0.1). */
const shipped = loadConfig({});
const FAILURES_PER_CLIENT_AND_SOURCE = shipped.TOKEN_FAILURES_PER_CLIENT_SOURCE;
const FAILURES_PER_SOURCE = shipped.TOKEN_FAILURES_PER_SOURCE;

/** Earlier tokens of the client, as another instance would have recorded them. */
async function recordEarlierTokens(clientId: string, count: number, at: Date): Promise<void> {
  await sql(
    'insert into token_issues (client_id, succeeded, created_at) select ?, true, ? from generate_series(1, ?)',
    [clientId, at, count],
  );
}

const countTokens = async (clientId: string): Promise<number> => {
  const [row] = await sql('select count(*)::int as n from token_issues where client_id = ?', [clientId]);
  return row.n as number;
};

/** A caller at `from` behind the trusted proxy (127.0.0.1 in these tests). */
const ask = (http: HttpClient, clientId: string, secret: string, from?: string) =>
  requestToken(
    http,
    { client_id: clientId, client_secret: secret, scopes: ['policy.get'] },
    from ? { 'x-forwarded-for': from } : {},
  );
const askAs = (http: HttpClient, client: TestClient, from?: string) =>
  ask(http, client.clientId, client.clientSecret, from);

function expectRateLimited(res: HttpResult, retryAfter?: number): void {
  expect(res.status).to.equal(429);
  const header = Number(res.headers.get('retry-after'));
  if (retryAfter === undefined) expect(header).to.be.within(1, 3600);
  else expect(header).to.equal(retryAfter);
  expect(res.body).to.deep.equal({
    type: 'A4290',
    title: 'Rate Limit Exceeded',
    detail: 'Too many token requests for this client in the last hour; retry in 60 seconds.',
    instance: '/v1/auth/token',
  });
}

describe('token request rate limit (D4): 100 tokens per client per rolling hour, failures budgeted apart', () => {
  const apis: ProbeApi[] = [];
  const start = async (overrides: Parameters<typeof startProbeApi>[0] = {}) => {
    const config = {
      ...stack().config,
      TOKEN_FAILURES_PER_CLIENT_SOURCE: FAILURES_PER_CLIENT_AND_SOURCE,
      TOKEN_FAILURES_PER_SOURCE: FAILURES_PER_SOURCE,
    };
    const api = await startProbeApi({ config, ...overrides });
    apis.push(api);
    return api;
  };
  /** An API that believes X-Forwarded-For from loopback, so a test can speak from many addresses. */
  const behindProxy = (clock = fixedClock(new Date())) =>
    start({ clock, trustedProxies: trustedProxies(['127.0.0.1/32', '::1']) });
  after(() => Promise.all(apis.map((api) => api.close())));

  it('answers the 101st token of the hour with 429 and the real seconds until a slot frees', async () => {
    const clock = fixedClock(new Date());
    const api = await start({ clock });
    const [busy, other] = await Promise.all([makeClient(), makeClient()]);
    await recordEarlierTokens(busy.clientId, 99, new Date(clock.now().getTime() - 30 * 60 * 1000));

    expect((await askAs(api.http, busy)).status).to.equal(200);
    expectRateLimited(await askAs(api.http, busy), 30 * 60);
    clock.advance(10_500);
    expectRateLimited(await askAs(api.http, busy), 30 * 60 - 10);
    expect((await askAs(api.http, other)).status).to.equal(200);
    // Refused requests are not recorded: the client is free again an hour after its 100th.
    expect(await countTokens(busy.clientId)).to.equal(TOKEN_REQUEST_LIMIT);
  });

  it('does not count failed secrets against the owner’s tokens: an attacker elsewhere cannot lock it out', async () => {
    const api = await behindProxy();
    const owner = await makeClient();
    const attacker = '203.0.113.9';
    for (let i = 0; i < FAILURES_PER_CLIENT_AND_SOURCE; i++) {
      expect((await ask(api.http, owner.clientId, `sk_guess_${i}`, attacker)).status).to.equal(401);
    }
    expectRateLimited(await ask(api.http, owner.clientId, 'sk_guess_x', attacker), 3600);
    // Even the right secret is refused from the guessing address: the budget is checked before hashing.
    expectRateLimited(await askAs(api.http, owner, attacker));
    expect((await askAs(api.http, owner, '198.51.100.20')).status).to.equal(200);
    expect((await askAs(api.http, owner)).status).to.equal(200);
  });

  it('limits unknown client_ids exactly like known ones, before any hashing', async () => {
    const api = await behindProxy();
    const known = await makeClient();
    const unknownId = `cl_${randomBytes(8).toString('hex')}`;
    const answers: { known: HttpResult[]; unknown: HttpResult[] } = { known: [], unknown: [] };
    for (let i = 0; i <= FAILURES_PER_CLIENT_AND_SOURCE; i++) {
      answers.known.push(await ask(api.http, known.clientId, 'sk_wrong', '192.0.2.1'));
      answers.unknown.push(await ask(api.http, unknownId, 'sk_wrong', '192.0.2.1'));
    }
    const shape = (r: HttpResult) => ({
      status: r.status,
      body: r.body,
      retry: r.headers.get('retry-after'),
    });
    expect(answers.known.map(shape)).to.deep.equal(answers.unknown.map(shape));
    expect(answers.known.at(-1)!.status).to.equal(429);

    const before = api.deps.secretChecks.run;
    expectRateLimited(await ask(api.http, unknownId, 'sk_wrong', '192.0.2.1'));
    expect(api.deps.secretChecks.run, 'no scrypt for a limited request').to.equal(before);
  });

  it('bounds the failures of one address across every client_id it tries', async () => {
    const api = await behindProxy();
    const source = '192.0.2.77';
    const ids = Array.from({ length: FAILURES_PER_SOURCE }, () => `cl_${randomBytes(8).toString('hex')}`);
    const statuses = await Promise.all(ids.map((id) => ask(api.http, id, 'sk_wrong', source)));
    expect(statuses.map((r) => r.status)).to.deep.equal(ids.map(() => 401));
    const before = api.deps.secretChecks.run;
    expectRateLimited(await ask(api.http, `cl_${randomBytes(8).toString('hex')}`, 'sk_wrong', source));
    expect(api.deps.secretChecks.run).to.equal(before);
    expect((await ask(api.http, ids[0]!, 'sk_wrong', '192.0.2.78')).status).to.equal(401);
  });

  it('ignores X-Forwarded-For unless the peer is a trusted proxy', async () => {
    const api = await start();
    const client = await makeClient();
    for (let i = 0; i < FAILURES_PER_CLIENT_AND_SOURCE; i++) {
      await ask(api.http, client.clientId, 'sk_wrong', `198.18.0.${i + 1}`);
    }
    // Every guess came from the same peer whatever the header claimed: the budget is spent.
    expectRateLimited(await ask(api.http, client.clientId, 'sk_wrong', '198.18.1.1'));
  });

  it('rolls: tokens older than an hour stop counting and are pruned', async () => {
    const clock = fixedClock(new Date());
    const api = await start({ clock });
    const client = await makeClient();
    await recordEarlierTokens(client.clientId, 3, new Date(clock.now().getTime() - 3 * HOUR_MS));
    await recordEarlierTokens(client.clientId, 100, new Date(clock.now().getTime() - HOUR_MS + 60_000));

    expectRateLimited(await askAs(api.http, client), 60);
    expect(await countTokens(client.clientId)).to.equal(100);

    clock.advance(59_000);
    expectRateLimited(await askAs(api.http, client), 1);
    clock.advance(2_000);
    expect((await askAs(api.http, client)).status).to.equal(200);
    expect(await countTokens(client.clientId)).to.equal(1);
  });

  it('shares one count between two API instances', async () => {
    const [a, b] = await Promise.all([start(), start()]);
    const client = await makeClient();
    await recordEarlierTokens(client.clientId, 98, new Date(Date.now() - 5 * 60 * 1000));

    expect((await askAs(a.http, client)).status).to.equal(200);
    expect((await askAs(b.http, client)).status).to.equal(200);
    expectRateLimited(await askAs(a.http, client));
    expectRateLimited(await askAs(b.http, client));
  });

  it('never issues more than the limit when requests race on two instances', async () => {
    const [a, b] = await Promise.all([start(), start()]);
    const client = await makeClient();
    await recordEarlierTokens(client.clientId, 90, new Date(Date.now() - 5 * 60 * 1000));

    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) => askAs((i % 2 ? a : b).http, client)),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).to.have.length(10);
    expect(statuses.filter((s) => s === 429)).to.have.length(14);
    expect(await countTokens(client.clientId)).to.equal(TOKEN_REQUEST_LIMIT);
  });
});
