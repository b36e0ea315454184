import { expect } from 'chai';
import { fixedClock } from '../../domain/clock.js';
import { makeClient, sql, type TestClient } from '../support/factories.js';
import type { HttpClient, HttpResult } from '../support/http.js';
import { requestToken, startProbeApi, type ProbeApi } from './auth-fixtures.js';

const HOUR_MS = 60 * 60 * 1000;

/** Earlier requests of the client, as another instance would have recorded them. */
async function recordEarlierRequests(clientId: string, count: number, at: Date): Promise<void> {
  await sql(
    'insert into token_issues (client_id, succeeded, created_at) select ?, true, ? from generate_series(1, ?)',
    [clientId, at, count],
  );
}

const countRows = async (clientId: string, where = 'true'): Promise<number> => {
  const [row] = await sql(`select count(*)::int as n from token_issues where client_id = ? and ${where}`, [
    clientId,
  ]);
  return row.n as number;
};

const ask = (http: HttpClient, client: TestClient, secret = client.clientSecret) =>
  requestToken(http, { client_id: client.clientId, client_secret: secret, scopes: ['policy.get'] });

function expectRateLimited(res: HttpResult): void {
  expect(res.status).to.equal(429);
  expect(res.headers.get('retry-after')).to.equal('60');
  expect(res.body).to.deep.equal({
    type: 'A4290',
    title: 'Rate Limit Exceeded',
    detail: 'Too many token requests for this client in the last hour; retry in 60 seconds.',
    instance: '/v1/auth/token',
  });
}

describe('token request rate limit (D4): 100 per client per rolling hour, shared by every instance', () => {
  const apis: ProbeApi[] = [];
  const start = async (...args: Parameters<typeof startProbeApi>) => {
    const api = await startProbeApi(...args);
    apis.push(api);
    return api;
  };
  after(() => Promise.all(apis.map((api) => api.close())));

  it('answers the 101st request of the hour with 429 and Retry-After while another client is unaffected', async () => {
    const api = await start();
    const [busy, other] = await Promise.all([makeClient(), makeClient()]);
    await recordEarlierRequests(busy.clientId, 99, new Date(Date.now() - 30 * 60 * 1000));

    expect((await ask(api.http, busy)).status).to.equal(200);
    expectRateLimited(await ask(api.http, busy));
    expectRateLimited(await ask(api.http, busy));
    expect((await ask(api.http, other)).status).to.equal(200);
    // Refused requests are not recorded: the client is free again an hour after its 100th.
    expect(await countRows(busy.clientId)).to.equal(100);
  });

  it('counts failed secrets too', async () => {
    const api = await start();
    const client = await makeClient();
    await recordEarlierRequests(client.clientId, 98, new Date(Date.now() - 10 * 60 * 1000));

    expect((await ask(api.http, client, 'sk_guess_1')).status).to.equal(401);
    expect((await ask(api.http, client, 'sk_guess_2')).status).to.equal(401);
    expectRateLimited(await ask(api.http, client));
    expectRateLimited(await ask(api.http, client, 'sk_guess_3'));
  });

  it('rolls: requests older than an hour stop counting and are pruned', async () => {
    const clock = fixedClock(new Date());
    const api = await start({ clock });
    const client = await makeClient();
    await recordEarlierRequests(client.clientId, 3, new Date(clock.now().getTime() - 3 * HOUR_MS));
    await recordEarlierRequests(client.clientId, 100, new Date(clock.now().getTime() - HOUR_MS + 60_000));

    expectRateLimited(await ask(api.http, client));
    expect(await countRows(client.clientId)).to.equal(100);

    clock.advance(59_000);
    expectRateLimited(await ask(api.http, client));
    clock.advance(2_000);
    expect((await ask(api.http, client)).status).to.equal(200);
    expect(await countRows(client.clientId)).to.equal(1);
  });

  it('shares one count between two API instances', async () => {
    const [a, b] = await Promise.all([start(), start()]);
    const client = await makeClient();
    await recordEarlierRequests(client.clientId, 98, new Date(Date.now() - 5 * 60 * 1000));

    expect((await ask(a.http, client)).status).to.equal(200);
    expect((await ask(b.http, client)).status).to.equal(200);
    expectRateLimited(await ask(a.http, client));
    expectRateLimited(await ask(b.http, client));
  });

  it('never admits more than the limit when requests race on two instances', async () => {
    const [a, b] = await Promise.all([start(), start()]);
    const client = await makeClient();
    await recordEarlierRequests(client.clientId, 90, new Date(Date.now() - 5 * 60 * 1000));

    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        ask((i % 2 ? a : b).http, client, i % 3 ? client.clientSecret : 'sk_x'),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 429)).to.have.length(14);
    expect(statuses.filter((s) => s !== 429)).to.have.length(10);
    expect(await countRows(client.clientId)).to.equal(100);
  });
});
