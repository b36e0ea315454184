import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { apiProcessWithTenant, type TenantApi } from '../support/api-process.js';
import { percentiles, report } from '../support/report.js';

/**
 * Abuse: bodies built to cost the most per byte (a 1 MiB JSON array of ~350,000 empty arrays) sent
 * by four connections at once, without a token, with a wrong one and with a valid one, while
 * /healthz is timed from another connection. The token route never reads such a body (413 past a
 * few KiB), protected routes refuse before reading it (401), and an authenticated caller gets a 400
 * from a bounded walk. The /healthz figures are reported; the bounds asserted are deliberately generous.
 */
const ATTACKERS = 4;
const ROUNDS = 6;
const hostile = Buffer.from(`[${Array.from({ length: 349_000 }, () => '[]').join(',')}]`);

describe('resilience: hostile JSON bodies do not stall the API', () => {
  const started = apiProcessWithTenant('stall', 'st');
  let api: TenantApi['api'];
  let http: TenantApi['http'];
  let tenant: TenantApi['tenant'];
  before(() => ({ api, http, tenant } = started()));

  const send = async (path: string, token?: string) => {
    const res = await fetch(`${api.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: hostile,
    }).catch(() => null);
    if (!res) return 0;
    await res.arrayBuffer();
    return res.status;
  };

  interface Target {
    label: string;
    path: string;
    token?: string;
    expected: number;
  }

  /** Four connections send the hostile body to each target ROUNDS times while /healthz is timed. */
  async function attack(targets: Target[]) {
    const statuses: Record<string, Record<number, number>> = {};
    let attacking = true;
    const healthz: number[] = [];
    const probe = (async () => {
      while (attacking) {
        const started = performance.now();
        await (await fetch(`${api.url}/healthz`)).arrayBuffer();
        healthz.push(performance.now() - started);
        await sleep(20);
      }
    })();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: ATTACKERS }, async () => {
        for (let round = 0; round < ROUNDS; round++) {
          for (const target of targets) {
            const status = await send(target.path, target.token);
            statuses[target.label] = {
              ...statuses[target.label],
              [status]: (statuses[target.label]?.[status] ?? 0) + 1,
            };
          }
        }
      }),
    );
    attacking = false;
    await probe;
    for (const target of targets) {
      expect(statuses[target.label], target.label).to.deep.equal({ [target.expected]: ATTACKERS * ROUNDS });
    }
    expect(api.process.exitCode).to.equal(null);
    return {
      requests: ATTACKERS * ROUNDS * targets.length,
      wallMs: Math.round(performance.now() - started),
      healthzMs: percentiles(healthz),
      statuses,
    };
  }

  it('keeps /healthz answering while four anonymous connections send 1 MiB of empty arrays', async function () {
    this.timeout(180_000);
    expect(hostile.length)
      .to.be.greaterThan(690_000)
      .and.lessThan(1024 * 1024);
    const figures = await attack([
      { label: 'token route', path: '/v1/auth/token', expected: 413 },
      { label: 'no token', path: '/v1/client/employees', expected: 401 },
      { label: 'bad token', path: '/v1/client/employees', token: 'not-a-token', expected: 401 },
    ]);
    report('hostile JSON bodies, anonymous', { attackers: ATTACKERS, ...figures });
    // Before the fix the median was seconds: every body was parsed and walked before any check.
    expect(figures.healthzMs.p50, 'median /healthz under attack (ms)').to.be.lessThan(250);
  });

  it('bounds what an authenticated client can make one request cost', async function () {
    this.timeout(180_000);
    const figures = await attack([
      { label: 'valid token', path: '/v1/client/employees', token: tenant.token, expected: 400 },
    ]);
    // JSON.parse of the body is the remaining cost, attributable to one client; reported, not tuned.
    report('hostile JSON bodies, authenticated', { attackers: ATTACKERS, ...figures });
    expect(figures.healthzMs.p50, 'median /healthz under attack (ms)').to.be.lessThan(2000);
  });

  it('names the limit when a body holds more values than any request needs', async () => {
    const res = await http.post('/v1/client/employees', {
      token: tenant.token,
      rawBody: hostile,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).to.equal(400);
    expect(res.body).to.include({ type: 'VALIDATION_ERROR' });
    expect(res.body.detail).to.equal('body: must hold at most 50000 values in one request');
  });

  it('answers a token request over 4 KiB with 413 naming the limit', async () => {
    const res = await http.post('/v1/auth/token', {
      rawBody: Buffer.from(
        JSON.stringify({ client_id: 'x'.repeat(5000), client_secret: 's', scopes: ['policy.get'] }),
      ),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).to.equal(413);
    expect(res.body).to.include({ type: 'PAYLOAD_TOO_LARGE', detail: 'request body exceeds 4 KiB' });
  });
});
