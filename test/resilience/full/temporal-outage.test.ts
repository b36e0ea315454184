import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { expect } from 'chai';
import { createTemporalClient, payloadDataConverter } from '../../../infra/temporal-client.js';
import { resolveTemporalCli, startDevServer, type RunningDevServer } from '../../../infra/temporal.js';
import { freePort } from '../../../infra/ports.js';
import { client, type HttpClient, type HttpResult } from '../../support/http.js';
import { sql } from '../../support/factories.js';
import { stack } from '../../support/stack.js';
import { startWorker, stopChildren, type Child } from '../support/children.js';
import {
  acceptedIds,
  additionBody,
  compareWithTemporal,
  openCount,
  postAdditions,
  retriedAttempts,
  runFigures,
  seedRun,
  waitAllFinal,
} from '../support/endorsement-run.js';
import { report } from '../support/report.js';

/**
 * Fault 3: the Temporal server stops for about 20 s mid-run and comes back on its SQLite file. The
 * test runs its own dev server (file-backed, on a fixed port) with its own worker process and API;
 * endorsements are in flight (the simulated insurer decides after 3 s) when the server stops.
 * During the outage POSTs are made every 2 s. Pass: each of those answers 503 SERVICE_UNAVAILABLE
 * with Retry-After and leaves no endorsement row behind without a workflow (or the reconciler starts
 * it), reads keep answering from PostgreSQL, /readyz says the workflow engine is down; after the
 * restart the same POSTs (same Idempotency-Key) go through and every endorsement ends APPROVED, the
 * API agreeing with Temporal for each one.
 */
const BEFORE = 20;
const OUTAGE_MS = 20_000;

describe('resilience: Temporal server stopped for 20 s mid-run', () => {
  let dir: string;
  let dev: RunningDevServer | null = null;
  let worker: Child | undefined;
  let connection: Connection | undefined;

  after(async function () {
    this.timeout(60_000);
    await stopChildren();
    await connection?.close().catch(() => undefined);
    await dev?.stop();
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  it('loses no endorsement, answers 503 with Retry-After meanwhile and leaves no row without a workflow', async function () {
    this.timeout(600_000);
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ghi-temporal-outage-'));
    const cli = await resolveTemporalCli(stack().config.TEMPORAL_CLI_PATH);
    const port = await freePort();
    const dbFile = path.join(dir, 'temporal.sqlite');
    const start = () => startDevServer({ cli, port, dbFile });
    dev = await start();

    const taskQueue = `outage-${stack().runId}`;
    const config = { ...stack().config, TEMPORAL_ADDRESS: dev.address, TEMPORAL_TASK_QUEUE: taskQueue };
    const api: HttpClient = client(
      (await stack().startApi({ config, temporal: createTemporalClient(config) })).url,
    );
    worker = await startWorker(
      {
        databaseUrl: stack().databaseUrl,
        systemDatabaseUrl: stack().systemDatabaseUrl,
        temporalAddress: dev.address,
        taskQueue,
      },
      { SIMULATED_INSURER_DELAY_MS: '3000' },
    );
    const world = await seedRun(BEFORE + 20);
    const [early, later] = [world.employeeIds.slice(0, BEFORE), world.employeeIds.slice(BEFORE)];

    const accepted = acceptedIds(await postAdditions(() => api, world, early, { concurrency: 5 }));
    expect(accepted).to.have.length(BEFORE);
    await sleep(1000);

    // The outage.
    const openAtStop = await openCount(world);
    const stoppedAt = Date.now();
    await dev.stop();
    dev = null;
    const during: { employeeId: string; res: HttpResult; ms: number }[] = [];
    const reads: number[] = [];
    const ready: number[] = [];
    const probes: Promise<void>[] = [];
    // A POST, a read and a readiness check every 2 s, each answered in its own time.
    for (let n = 0; Date.now() - stoppedAt < OUTAGE_MS && n < later.length; n++) {
      const employeeId = later[n]!;
      probes.push(
        (async () => {
          const t = Date.now();
          const res = await api.post('/v1/policy/endorsements', {
            token: world.token,
            body: additionBody(world, employeeId),
            headers: { 'Idempotency-Key': `run-${employeeId}` },
          });
          during.push({ employeeId, res, ms: Date.now() - t });
        })(),
        api
          .get(`/v1/policy/endorsements/${accepted[0]}`, { token: world.token })
          .then((r) => void reads.push(r.status)),
        api.get('/readyz').then((r) => void ready.push(r.status)),
      );
      await sleep(2000);
    }
    await Promise.all(probes);
    const [leftWithout] = await sql(
      'select count(*)::int as n from endorsements where client_id = ? and workflow_started_at is null',
      [world.client.clientId],
    );
    dev = await start();
    const outageMs = Date.now() - stoppedAt;

    // The same requests again, as a client retries a 503 (bounded).
    const retried = await postAdditions(
      () => api,
      world,
      during.map((d) => d.employeeId),
      { concurrency: 3, retryUntil: Date.now() + 120_000 },
    );
    const open = await waitAllFinal(world, 240_000);
    connection = await Connection.connect({ address: dev.address });
    const temporal = new Client({
      connection,
      namespace: config.TEMPORAL_NAMESPACE,
      dataConverter: payloadDataConverter(config),
    });
    const figures = await runFigures(world);
    const disagreements = await compareWithTemporal(api, world, temporal);
    report('Temporal outage', {
      outageSeconds: Math.round(outageMs / 1000),
      openAtStop,
      activityRetries: await retriedAttempts(world, temporal),
      postsDuringOutage: during.map((d) => `${d.res.status} in ${d.ms} ms`),
      readsDuringOutage: reads,
      readyzDuringOutage: ready,
      rowsWithoutWorkflowAfterOutage: leftWithout.n,
      retriedAfterRestart: retried.map((r) => r.final.status),
      ...figures,
      disagreements: disagreements.length,
      workerStillRunning: worker.process.exitCode === null,
    });

    expect(during.length).to.be.at.least(8);
    for (const d of during) {
      expect(d.res.status, d.res.text).to.equal(503);
      expect(d.res.body).to.include({ type: 'SERVICE_UNAVAILABLE', title: 'Service Unavailable' });
      expect(d.res.headers.get('retry-after')).to.match(/^\d+$/);
    }
    expect(
      reads.every((s) => s === 200),
      'reads answer from PostgreSQL',
    ).to.equal(true);
    expect(
      ready.every((s) => s === 503),
      '/readyz reports the outage',
    ).to.equal(true);
    expect(retried.every((r) => r.final.status === 200)).to.equal(true);
    expect(open).to.equal(0);
    expect(figures.endorsements).to.equal(BEFORE + during.length);
    expect(figures.byStatus).to.deep.equal({ ENDORSEMENT_STATUS_APPROVED: BEFORE + during.length });
    expect(figures.withoutWorkflowMark).to.equal(0);
    expect(figures.duplicateMemberRows + figures.duplicateActivePersons + figures.ledgerMismatches).to.equal(
      0,
    );
    expect(disagreements, JSON.stringify(disagreements.slice(0, 5))).to.deep.equal([]);
    expect(worker.process.exitCode, worker.output.join('').slice(-2000)).to.equal(null);
  });
});
