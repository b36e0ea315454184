import { expect } from 'chai';
import { residentMiB } from '../support/children.js';
import { apiProcessWithTenant, type TenantApi } from '../support/api-process.js';
import { percentiles, report } from '../support/report.js';
import { fillPath, queryString, routeCatalogue, sampleQuery, type OwnIds } from '../support/routes.js';
import { ownParam, tokenFor } from '../support/tenants.js';

/**
 * Abuse 14, resource limits, against the API as its own process (api/main.ts) so "no crash" means
 * the process: limit=10000 on every route with a `limit`, a body past 10 MiB on every write route, and
 * 200 concurrent health-card PDF requests. Pass: clean 4xx (or 429/503 under load, never another
 * 5xx), the process alive and answering afterwards. The PDF latencies are reported, not asserted.
 */
describe('resilience: resource limits on the API process', () => {
  const started = apiProcessWithTenant('limits', 'rl');
  let api: TenantApi['api'];
  let http: TenantApi['http'];
  let tenant: TenantApi['tenant'];
  let own: OwnIds;

  before(() => {
    ({ api, http, tenant } = started());
    own = Object.fromEntries(Object.entries(tenant.ids).map(([k, v]) => [k, v[0]]));
  });

  const pathOf = (info: ReturnType<typeof routeCatalogue>[number], query: Record<string, string> = {}) =>
    fillPath(info.def, Object.fromEntries(info.params.map((p) => [p, ownParam(p, own)]))) +
    queryString({ ...sampleQuery(info, own), ...query });

  it('answers limit=10000 with 400 on every route that pages', async () => {
    const paged = routeCatalogue().filter((r) => r.query?.properties && 'limit' in r.query.properties);
    expect(paged.length).to.be.greaterThan(0);
    for (const info of paged) {
      const res = await http.send(info.def.method, pathOf(info, { limit: '10000' }), {
        token: tokenFor(tenant, info.def),
      });
      expect(res.status, `${info.key}: ${res.text}`).to.equal(400);
      expect(res.body).to.include({ type: 'VALIDATION_ERROR' });
      expect(res.body.detail).to.match(/^limit: /);
    }
    report('limit=10000', { routes: paged.map((r) => r.key), answer: 400 });
  });

  it('answers a body past 10 MiB with 413 on every write route without reading it all', async function () {
    this.timeout(120_000);
    const writes = routeCatalogue().filter((r) => r.write);
    // One byte past the largest limit (a census upload's 10 MiB); every other route's limit is lower.
    const big = Buffer.alloc(10 * 1024 * 1024 + 1, 0x20);
    big.write('{"name":"');
    const answers: Record<string, number> = {};
    for (const info of writes) {
      const started = performance.now();
      const res = await http
        .send(info.def.method, pathOf(info), {
          token: tokenFor(tenant, info.def),
          rawBody: big,
          headers: { 'content-type': 'application/json' },
        })
        .catch((err: unknown) => ({ status: 0, body: null, text: String(err) }));
      answers[info.key] = Math.round(performance.now() - started);
      expect(res.status, `${info.key}: ${res.text.slice(0, 200)}`).to.equal(413);
      expect(res.body).to.include({ type: 'PAYLOAD_TOO_LARGE' });
    }
    report('body past 10 MiB', { routes: writes.length, msPerRoute: answers });
  });

  it('serves 200 concurrent health-card PDFs without a 5xx other than 503 and stays up', async function () {
    this.timeout(180_000);
    const coverage = await http.get(`/v1/policy/coverage/${tenant.employeeId}`, { token: tenant.token });
    const link = new URL(coverage.body.payload[0].pdf_url);
    const target = `${api.url}${link.pathname}${link.search}`;
    const rssBefore = await residentMiB(api.process.pid!);
    const statuses: Record<number, number> = {};
    const latencies: number[] = [];
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 200 }, async () => {
        const t = performance.now();
        const res = await fetch(target).catch(() => null);
        const status = res?.status ?? 0;
        if (res) await res.arrayBuffer();
        latencies.push(performance.now() - t);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }),
    );
    const wallMs = Math.round(performance.now() - started);
    const rssAfter = await residentMiB(api.process.pid!);
    report('200 concurrent PDFs', {
      statuses,
      ...percentiles(latencies),
      wallMs,
      rssBeforeMiB: rssBefore,
      rssAfterMiB: rssAfter,
    });
    for (const status of Object.keys(statuses).map(Number))
      expect([200, 429, 503], `status ${status}`).to.include(status);
    expect(api.process.exitCode, 'the API process is still running').to.equal(null);
    expect((await fetch(`${api.url}/healthz`)).status).to.equal(200);
  });
});
