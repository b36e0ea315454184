import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { createTokenService } from '../../../api/auth/tokens.js';
import { loadBenchDataset } from '../../../bench/dataset.js';
import { initOrm, loginsOf, migrate, provisionLogins, type Orm } from '../../../db/orm.js';
import { derivedLogins } from '../../../db/roles.js';
import { systemClock } from '../../../domain/clock.js';
import { SCOPES } from '../../../domain/scopes.js';
import { ensureDatabase } from '../../../db/databases.js';
import { startEmbeddedPostgres, type RunningPostgres } from '../../../infra/postgres.js';
import { freePort } from '../../../infra/ports.js';
import { client, type HttpClient, type HttpResult } from '../../support/http.js';
import { stack } from '../../support/stack.js';
import { startApiProcess, startWorker, stopChildren, type Child } from '../support/children.js';
import {
  acceptedIds,
  additionBody,
  compareWithTemporal,
  openCount,
  postAdditions,
  retriedAttempts,
  runFigures,
  waitAllFinal,
  type RunWorld,
} from '../support/endorsement-run.js';
import { endReconcilers } from '../support/reconcilers.js';
import { report } from '../support/report.js';

/**
 * Fault 4: PostgreSQL stops for about 20 s mid-run. The test brings its own embedded PostgreSQL (so
 * it can stop it) with an API process and a worker process on it; endorsements are in flight (the
 * simulated insurer decides after 3 s, so activities meet the outage). During the outage reads,
 * writes and token requests are made. Pass: each answers 503 SERVICE_UNAVAILABLE with Retry-After
 * and nothing internal in the body (no stack, no SQL), /readyz answers 503 naming the database,
 * both processes stay up; once PostgreSQL is back every endorsement ends APPROVED (activities
 * retried), the POSTs of the outage go through on retry, and the API agrees with Temporal.
 */
const BEFORE = 20;
const OUTAGE_MS = 20_000;
const INTERNAL =
  /\bselect\b|\binsert\b|\bupdate\b|\bwhere\b|\s+at\s+\S+\s\(|node_modules|ECONN|postgres:\/\/|Error:/i;

describe('resilience: PostgreSQL stopped for 20 s mid-run', () => {
  let dir: string;
  let pg: RunningPostgres | null = null;
  let orm: Orm | undefined;

  after(async function () {
    this.timeout(60_000);
    await stopChildren();
    await endReconcilers(stack().temporal);
    await orm?.close().catch(() => undefined);
    await pg?.stop().catch(() => undefined);
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  it('answers 503 without internals meanwhile, and loses nothing once it is back', async function () {
    this.timeout(600_000);
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ghi-pg-outage-'));
    const port = await freePort();
    pg = await startEmbeddedPostgres(dir, port);
    const ownerUrl = await ensureDatabase(pg.url, 'ghi_outage');
    orm = await initOrm({ databaseUrl: ownerUrl, poolMax: 4, as: 'owner' });
    await migrate(orm);
    const logins = derivedLogins(ownerUrl, pg.url);
    await provisionLogins(orm, loginsOf([logins.databaseUrl, logins.systemDatabaseUrl]));
    const dataset = await loadBenchDataset(orm.em.fork(), BEFORE + 20);
    const cfg = stack().config;
    const token = createTokenService({
      keys: cfg.JWT_SIGNING_KEYS,
      issuer: cfg.JWT_ISSUER,
      audience: cfg.JWT_AUDIENCE,
      clock: systemClock,
    }).issue(dataset.clientId, SCOPES, 1);
    const world: RunWorld = {
      client: { clientId: dataset.clientId, clientSecret: dataset.clientSecret, token: () => token },
      token,
      // The dataset's first policy already covers everyone; the fourth (from 2026-04-01) is free.
      policyId: dataset.policyIds[3]!,
      employeeIds: dataset.employeeIds,
      orm,
    };

    const target = {
      ...logins,
      temporalAddress: stack().temporalAddress,
      taskQueue: `pg-outage-${stack().runId}`,
    };
    const worker: Child = await startWorker(target, { SIMULATED_INSURER_DELAY_MS: '3000' });
    const apiProcess = await startApiProcess(target);
    const api: HttpClient = client(apiProcess.url);
    const [early, later] = [world.employeeIds.slice(0, BEFORE), world.employeeIds.slice(BEFORE)];
    const accepted = acceptedIds(await postAdditions(() => api, world, early, { concurrency: 5 }));
    expect(accepted).to.have.length(BEFORE);
    await sleep(1000);

    const openAtStop = await openCount(world);
    const stoppedAt = Date.now();
    await pg.stop();
    const answers: { what: string; res: HttpResult }[] = [];
    const probes: Promise<void>[] = [];
    const probe = (what: string, request: () => Promise<HttpResult>) =>
      probes.push(request().then((res) => void answers.push({ what, res })));
    for (let n = 0; Date.now() - stoppedAt < OUTAGE_MS && n < later.length; n++) {
      const employeeId = later[n]!;
      probe('POST endorsement', () =>
        api.post('/v1/policy/endorsements', {
          token,
          body: additionBody(world, employeeId),
          headers: { 'Idempotency-Key': `run-${employeeId}` },
        }),
      );
      probe('GET endorsement', () => api.get(`/v1/policy/endorsements/${accepted[0]}`, { token }));
      probe('GET policy', () => api.get(`/v1/policy/${world.policyId}`, { token }));
      probe('POST token', () =>
        api.post('/v1/auth/token', {
          body: { client_id: dataset.clientId, client_secret: dataset.clientSecret, scopes: ['policy.all'] },
        }),
      );
      probe('GET /readyz', () => api.get('/readyz'));
      probe('GET /healthz', () => api.get('/healthz'));
      await sleep(2000);
    }
    await Promise.all(probes);
    const posted = later.slice(0, answers.filter((a) => a.what === 'POST endorsement').length);
    pg = await startEmbeddedPostgres(dir, port);
    const outageMs = Date.now() - stoppedAt;

    const retried = await postAdditions(() => api, world, posted, {
      concurrency: 3,
      retryUntil: Date.now() + 120_000,
    });
    const open = await waitAllFinal(world, 240_000);
    const figures = await runFigures(world);
    const disagreements = await compareWithTemporal(api, world);
    const byWhat: Record<string, Record<number, number>> = {};
    for (const a of answers) {
      byWhat[a.what] ??= {};
      byWhat[a.what]![a.res.status] = (byWhat[a.what]![a.res.status] ?? 0) + 1;
    }
    report('PostgreSQL outage', {
      outageSeconds: Math.round(outageMs / 1000),
      openAtStop,
      activityRetries: await retriedAttempts(world),
      answersDuringOutage: byWhat,
      retriedAfterRestart: retried.map((r) => r.final.status),
      ...figures,
      disagreements: disagreements.length,
      apiStillRunning: apiProcess.process.exitCode === null,
      workerStillRunning: worker.process.exitCode === null,
    });

    for (const { what, res } of answers) {
      if (what === 'GET /healthz') {
        expect(res.status, what).to.equal(200);
        continue;
      }
      expect(res.status, `${what}: ${res.text}`).to.equal(503);
      expect(res.body, what).to.include({ type: 'SERVICE_UNAVAILABLE', title: 'Service Unavailable' });
      expect(res.headers.get('retry-after'), what).to.match(/^\d+$/);
      expect(res.text, what).to.not.match(INTERNAL);
      if (what === 'GET /readyz') expect(res.body.detail).to.contain('database');
    }
    expect(retried.every((r) => r.final.status === 200)).to.equal(true);
    expect(open).to.equal(0);
    expect(figures.endorsements).to.equal(BEFORE + posted.length);
    expect(figures.byStatus).to.deep.equal({ ENDORSEMENT_STATUS_APPROVED: BEFORE + posted.length });
    expect(figures.duplicateMemberRows + figures.duplicateActivePersons + figures.ledgerMismatches).to.equal(
      0,
    );
    expect(disagreements, JSON.stringify(disagreements.slice(0, 5))).to.deep.equal([]);
    expect(figures.balanceDrift, 'the ledger sums to each CD balance').to.equal('0.00');
    expect(apiProcess.process.exitCode, apiProcess.output.join('').slice(-2000)).to.equal(null);
    expect(worker.process.exitCode, worker.output.join('').slice(-2000)).to.equal(null);
  });
});
