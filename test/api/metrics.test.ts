import { expect } from 'chai';
import { createMetrics } from '../../api/metrics.js';
import { loadConfig } from '../../config/index.js';
import { makeClient, makeEndorsement, makePolicy, sql, type TestClient } from '../support/factories.js';
import { client, type HttpClient } from '../support/http.js';
import { stack } from '../support/stack.js';
import { createEndorsement, endorsementApi, makeWorld, waitFor } from '../workflows/endorsement-support.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The Prometheus text format, sample lines only. */
function parse(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!m) throw new Error(`not a sample line: ${line}`);
      const labels = Object.fromEntries(
        [...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]),
      );
      return { name: m[1]!, labels, value: Number(m[3]) };
    });
}

/** The value of the one sample with this name whose labels include these; 0 when there is none. */
function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  expect(found.length, `${name} ${JSON.stringify(labels)}`).to.be.at.most(1);
  return found[0]?.value ?? 0;
}

describe('GET /metrics (Prometheus), on its own port', () => {
  let http: HttpClient;
  let metrics: HttpClient;
  let c: TestClient;
  const metricsOf = (api: { metricsUrl: string | null }) => client(api.metricsUrl!);
  const scrape = async (h = metrics) => {
    const res = await h.get('/metrics');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    return parse(res.text);
  };

  before(async () => {
    const api = await stack().startApi();
    http = client(api.url);
    metrics = metricsOf(api);
    c = await makeClient();
  });

  it('counts requests and their latency by the matched route pattern and status, never the raw path', async () => {
    const policy = await makePolicy(c.clientId);
    const token = c.token(['policy.get']);
    expect((await http.get(`/v1/policy/${policy.id}`, { token })).status).to.equal(200);
    expect((await http.get(`/v1/policy/${policy.id}`, { token })).status).to.equal(200);
    expect((await http.get('/v1/policy/pol_unknown', { token })).status).to.equal(404);
    expect((await http.get(`/no/such/${policy.id}`)).status).to.equal(404);

    const samples = await scrape();
    const route = { method: 'GET', route: '/v1/policy/:policy_id' };
    expect(value(samples, 'http_requests_total', { ...route, status: '200' })).to.equal(2);
    expect(value(samples, 'http_requests_total', { ...route, status: '404' })).to.equal(1);
    expect(value(samples, 'http_request_duration_seconds_count', { ...route, status: '200' })).to.equal(2);
    expect(
      value(samples, 'http_request_duration_seconds_bucket', { ...route, status: '200', le: '+Inf' }),
    ).to.equal(2);
    expect(
      value(samples, 'http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }),
    ).to.equal(1);
    expect(samples.some((s) => Object.values(s.labels).some((v) => v.includes(policy.id)))).to.equal(false);
  });

  it('counts issued tokens and rate-limit refusals (D4)', async () => {
    const before = await scrape();
    const ask = () =>
      http.post('/v1/auth/token', {
        body: { client_id: c.clientId, client_secret: c.clientSecret, scopes: ['policy.get'] },
      });
    expect((await ask()).status).to.equal(200);
    // 99 more requests of the hour, as other instances would have recorded them: the next one is the 101st.
    await sql(
      'insert into token_issues (client_id, succeeded, created_at) select ?, true, now() from generate_series(1, 99)',
      [c.clientId],
    );
    expect((await ask()).status).to.equal(429);

    const after = await scrape();
    expect(value(after, 'ghi_token_issues_total') - value(before, 'ghi_token_issues_total')).to.equal(1);
    expect(
      value(after, 'ghi_token_rate_limited_total') - value(before, 'ghi_token_rate_limited_total'),
    ).to.equal(1);
  });

  it("reports this process's database pool: used, free, pending and max", async () => {
    const samples = await scrape();
    expect(value(samples, 'ghi_db_pool_connections', { state: 'max' })).to.equal(20);
    for (const state of ['used', 'free', 'pending']) {
      expect(value(samples, 'ghi_db_pool_connections', { state })).to.be.at.least(0);
    }
    // The scrape itself holds no connection once answered.
    expect(value(samples, 'ghi_db_pool_connections', { state: 'pending' })).to.equal(0);
  });

  it('reports endorsements by type and status, and the time from create to decision of new decisions', async () => {
    const { orm } = stack();
    // Its own registry with no read lag, created before the decisions below are written.
    const api = metricsOf(await stack().startApi({ metrics: createMetrics({ orm, decisionLagMs: 0 }) }));
    const policy = await makePolicy(c.clientId);
    const combo = {
      type: 'ENDORSEMENT_TYPE_MODIFICATION',
      status: 'ENDORSEMENT_STATUS_CANCELLED',
    } as const;
    const countCombo = async () =>
      Number(
        (
          await sql('select count(*)::int as n from endorsements where type = ? and status = ?', [
            combo.type,
            combo.status,
          ])
        )[0].n,
      );
    // Three decided three hours after their creation: far above any decision a workflow makes in a test.
    for (let i = 0; i < 3; i++) {
      const decidedAt = new Date();
      await makeEndorsement(c.clientId, policy.id, {
        ...combo,
        start: '2026-12-01',
        createdAt: new Date(decidedAt.getTime() - 3 * 3_600_000),
        decidedAt,
      });
    }
    const expected = await countCombo();

    const first = await scrape(api);
    expect(value(first, 'ghi_endorsements', combo)).to.equal(expected);
    expect(
      value(first, 'ghi_endorsements', { ...combo, status: 'ENDORSEMENT_STATUS_PENDING' }),
    ).to.be.at.least(0);
    const slow = (samples: Sample[]) =>
      value(samples, 'ghi_endorsement_decision_seconds_bucket', { ...combo, le: '21600' }) -
      value(samples, 'ghi_endorsement_decision_seconds_bucket', { ...combo, le: '3600' });
    expect(slow(first)).to.equal(3);
    // Each decision is observed once: the next scrape only reads decisions made after this one.
    expect(slow(await scrape(api))).to.equal(3);
  });

  it('reports the running endorsement workflows flagged EndorsementStuck (Temporal visibility)', async function () {
    this.timeout(60_000);
    const { temporal, config } = stack();
    // A one-second SLA: the workflow flags itself stuck while it waits for the (manual) insurer.
    const impatient = await endorsementApi({ config: { ...config, ENDORSEMENT_STUCK_AFTER: '1s' } });
    const world = await makeWorld({ api: impatient });
    const id = await createEndorsement(world);
    const query = `EndorsementStuck = true AND ClientId = '${world.client.clientId}'`;
    await waitFor(
      async () => (await temporal.workflow.count(query)).count,
      (n) => n === 1,
      `${id} flagged stuck in visibility`,
    );
    const stuckQuery =
      "WorkflowType = 'endorsementWorkflow' AND ExecutionStatus = 'Running' AND EndorsementStuck = true";
    const before = (await temporal.workflow.count(stuckQuery)).count;
    const samples = await scrape(metricsOf(await stack().startApi()));
    const after = (await temporal.workflow.count(stuckQuery)).count;
    expect(value(samples, 'ghi_endorsements_stuck')).to.be.within(Math.max(1, before), after);
    await world.api.post(`/v1/policy/endorsements/${id}/cancel`, { token: world.token });
  });

  it('asks for METRICS_TOKEN when one is configured, and is absent when disabled', async () => {
    const base = stack().config;
    const guarded = metricsOf(
      await stack().startApi({ config: { ...base, METRICS_TOKEN: 'scrape-token-0123456789' } }),
    );
    expect((await guarded.get('/metrics')).status).to.equal(401);
    expect((await guarded.get('/metrics', { headers: { authorization: 'Bearer wrong' } })).status).to.equal(
      401,
    );
    const ok = await guarded.get('/metrics', {
      headers: { authorization: 'Bearer scrape-token-0123456789' },
    });
    expect(ok.status).to.equal(200);

    const off = await stack().startApi({ config: { ...base, METRICS_ENABLED: false } });
    expect(off.metricsUrl).to.equal(null);
  });

  it('is not served on the API port, where tenants call', async () => {
    const res = await http.get('/metrics');
    expect(res.status).to.equal(404);
    expect(res.body).to.include({ type: 'NOT_FOUND', title: 'Not Found' });
  });

  it('listens on loopback unless METRICS_HOST and WORKER_METRICS_HOST say otherwise', () => {
    const cfg = loadConfig({});
    expect(cfg.METRICS_HOST).to.equal('127.0.0.1');
    expect(cfg.WORKER_METRICS_HOST).to.equal('127.0.0.1');
  });
});
