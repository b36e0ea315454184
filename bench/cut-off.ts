import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import ExcelJS from 'exceljs';
import { apiConfig, loadConfig } from '../config/index.js';
import { readFileEndorsementsAcrossClients } from '../data/insurer-exchange/files.js';
import { SystemScope } from '../data/scope.js';
import { initOrm } from '../db/orm.js';
import { insurerFileTable } from '../domain/insurer-exchange/file.js';
import { fileTemplate } from '../domain/insurer-exchange/file-templates/index.js';
import { newLocalKeys } from '../infra/local-keys.js';
import { spawnEntry } from '../infra/processes.js';
import { payloadDataConverter, temporalConnectionOptions } from '../infra/temporal-client.js';
import { stopChild } from '../infra/temporal.js';
import { flushInsurer } from '../usecases/insurer-exchange/cut-off.js';
import { approvalsAfterResponseFile } from './cut-off-responses.js';
import { loadBenchDataset } from './dataset.js';
import { median } from './measure.js';
import { migrateBenchDatabase, startBackingServices, untilPolling, WORKFLOW_AND_ACTIVITY } from './stack.js';

/**
 * `npm run bench:cut-off`: one cut-off of 5,000 endorsements of one file insurer (D14),
 * from `insurer flush` to the file delivered and the endorsements SENT_TO_INSURER, against writing the
 * same rows (10,000 people: employee and spouse) with exceljs alone. Our side: the worker process
 * (claim and plan, read the rows, write the XLSX, deliver to the local outbox, the bulk mark, a signal
 * per endorsement). The endorsements are seeded reviewed in SQL, so their workflows are not running:
 * each signal is one round trip answered "not found", and the workflow task a real signal would wake
 * on the worker is not measured. Then, once, the other half with real workflows: a response file
 * approving 5,000 running endorsements, ingested until all are APPROVED (bench/cut-off-responses.ts).
 * Writes bench/results/cut-off-latest.*.
 */
const ENDORSEMENTS = Number(process.env.BENCH_CUT_OFF_ENDORSEMENTS ?? 5_000);
const ROUNDS = Number(process.env.BENCH_CUT_OFF_ROUNDS ?? 3);
const RESULTS = path.resolve(import.meta.dirname, 'results');

async function main(): Promise<void> {
  const services = await startBackingServices('cutoff');
  const { runId, ownerDatabaseUrl, temporalAddress, stops } = services;
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ghi-cut-off-bench-'));
  stops.push(() => fs.rm(dataDir, { recursive: true, force: true }));
  try {
    const env = {
      ...process.env,
      NODE_ENV: 'production',
      ...newLocalKeys('bench'),
      ...services.databaseEnv,
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_TASK_QUEUE: `cut-off-${runId}`,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      WORKER_METRICS_PORT: '0',
    };
    const config = apiConfig(loadConfig(env));
    // The owner migrates and seeds; the flush reads and writes as the service role, as `insurer flush` does.
    const owner = await initOrm({ databaseUrl: ownerDatabaseUrl, poolMax: 2, as: 'owner' });
    stops.push(() => owner.close());
    await migrateBenchDatabase(owner, services);
    const orm = await initOrm({ ...services, poolMax: 5 });
    stops.push(() => orm.close());
    const dataset = await loadBenchDataset(owner.em.fork(), ENDORSEMENTS);
    const policyId = dataset.policyIds[1]!;
    const conn = owner.em.getConnection();
    await conn.execute(
      `update insurers set adapter = 'file', adapter_settings = '{"template":"generic","formats":["xlsx"]}' where code = 'BENCH'`,
    );
    const worker = spawnEntry('worker/main.ts', env);
    stops.push(() => stopChild(worker));
    const connection = await Connection.connect(temporalConnectionOptions(config));
    stops.push(() => connection.close());
    const temporal = new Client({ connection, dataConverter: payloadDataConverter(config) });
    // Measured once the worker polls: it bundles its workflow code first, both cores busy meanwhile.
    await untilPolling(connection, config, config.TEMPORAL_TASK_QUEUE, worker.pid!, WORKFLOW_AND_ACTIVITY);

    // Warm-up: an empty cut-off (its first statements are not measured).
    await flushInsurer(
      { em: orm.em.fork(), temporal, taskQueue: config.TEMPORAL_TASK_QUEUE },
      'BENCH',
      new Date(),
    );
    await new Promise((r) => setTimeout(r, 1_100));

    const ours: number[] = [];
    const peer: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // A fresh backlog each round: the previous round's endorsements were sent.
      await conn.execute(`delete from endorsements where policy_id = ?`, [policyId]);
      await conn.execute(
        `insert into endorsements (id, client_id, policy_id, employee_id, type, status, coverage_start_date,
           coverage_end_date, premium_impact, sum_insured, workflow_started_at, cut_off_queued_at)
         select 'end_bench' || ? || '_' || g, ?, ?, 'emp_bench' || g, 'ENDORSEMENT_TYPE_ADDITION',
                'ENDORSEMENT_STATUS_PENDING', date '2026-12-01', date '2027-01-31', 3650, 300000,
                now() - interval '1 minute', now() - interval '1 minute'
           from generate_series(1, ?) g`,
        [round, dataset.clientId, policyId, ENDORSEMENTS],
      );
      const started = performance.now();
      const result = await flushInsurer(
        { em: orm.em.fork(), temporal, taskQueue: config.TEMPORAL_TASK_QUEUE },
        'BENCH',
        new Date(),
      );
      ours.push(performance.now() - started);
      if (result.sent !== ENDORSEMENTS) throw new Error(`cut-off sent ${result.sent} of ${ENDORSEMENTS}`);

      // The peer: the same rows, read once, then exceljs alone writes the same table to a file.
      const ids = result.files[0]!.endorsement_ids;
      const rows = await readFileEndorsementsAcrossClients(SystemScope.of(orm.em.fork()), ids);
      const table = insurerFileTable(fileTemplate('generic'), rows);
      const t = performance.now();
      const book = new ExcelJS.Workbook();
      book.addWorksheet('Endorsements').addRows(table);
      await fs.writeFile(
        path.join(dataDir, `peer-${round}.xlsx`),
        Buffer.from(await book.xlsx.writeBuffer()),
      );
      peer.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 1_100)); // the next flush is a new cut-off
    }
    // The second half, once: the insurer's response file, until every endorsement is APPROVED.
    const answer = await approvalsAfterResponseFile({
      owner,
      orm,
      temporal,
      config,
      dataDir,
      clientId: dataset.clientId,
      policyId,
      insurerCode: 'BENCH',
      endorsements: ENDORSEMENTS,
    });
    const figures = {
      endorsements: ENDORSEMENTS,
      rows: ENDORSEMENTS * 2,
      rounds: ROUNDS,
      ours_ms: ours.map(Math.round),
      peer_ms: peer.map(Math.round),
      ours_median_ms: Math.round(median(ours)),
      peer_median_ms: Math.round(median(peer)),
      ratio: Number((median(ours) / median(peer)).toFixed(2)),
      response_file: {
        setup_ms: Math.round(answer.setup_ms),
        ours_ms: Math.round(answer.ours_ms),
        peer_ms: Math.round(answer.peer_ms),
        ratio: Number((answer.ours_ms / answer.peer_ms).toFixed(2)),
      },
      at: new Date().toISOString(),
    };
    await fs.mkdir(RESULTS, { recursive: true });
    await fs.writeFile(path.join(RESULTS, 'cut-off-latest.json'), `${JSON.stringify(figures, null, 2)}\n`);
    const md = [
      '| scenario | ours (median ms) | exceljs alone (median ms) | ratio |',
      '| --- | --- | --- | --- |',
      `| one cut-off of ${ENDORSEMENTS} endorsements (${ENDORSEMENTS * 2} rows), flush to delivered + SENT_TO_INSURER | ${figures.ours_median_ms} | ${figures.peer_median_ms} | ${figures.ratio} |`,
      `| a response file approving ${ENDORSEMENTS} running endorsement workflows, ingest to all APPROVED (1 round) | ${figures.response_file.ours_ms} | ${figures.response_file.peer_ms} | ${figures.response_file.ratio} |`,
      '',
    ].join('\n');
    await fs.writeFile(path.join(RESULTS, 'cut-off-latest.md'), md);
    process.stdout.write(`${md}${JSON.stringify(figures)}\n`);
  } finally {
    while (stops.length) await stops.pop()!().catch((err: unknown) => console.error('bench cleanup:', err));
  }
}

await main();
