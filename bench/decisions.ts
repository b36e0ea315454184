import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import pg from 'pg';
import { systemClock, today } from '../domain/clock.js';
import { payloadDataConverter, temporalConnectionOptions } from '../infra/temporal-client.js';
import { apiConfig } from '../config/index.js';
import { initOrm } from '../db/orm.js';
import { insurerDecisionUpdate } from '../workflows/endorsement/contract.js';
import { approvalsAfterResponseFile, startWaitingEndorsements } from './cut-off-responses.js';
import { pool } from './endorsements.js';
import { peerApproval } from './peers/approval-statements.js';
import { decideThroughApi } from './scale-decisions.js';
import { startBenchStack, type BenchStack } from './stack.js';

/**
 * `npm run bench:decisions [-- --quick]`: the insurer's decisions at the workflow floor. N real
 * endorsements (BENCH_DECISIONS, 5,000; 500 with --quick) of a file insurer wait for it (started as
 * the API starts them, reviewed, their funds held, sent by a cut-off), three times over:
 * - a response file approving all N, from `insurer ingest` until every one is APPROVED;
 * - N decisions through `POST /v1/insurer/decisions` (calls of 500, two in flight) until every one is APPROVED;
 * - the bare peer: N trivial workflows waiting on the decision Update (bench/peers/trivial-workflow.ts),
 *   each sent the Update and then the approval's own statements on a plain `pg` connection
 *   (bench/peers/approval-statements.ts) against the third set of waiting rows, 32 in flight (the
 *   API's two calls of 16 each).
 * Each ratio is the peer's time over ours (goal: at least 0.8). Writes bench/results/decisions-latest.*.
 */
const quick = process.argv.includes('--quick');
const N = Number(process.env.BENCH_DECISIONS ?? (quick ? 500 : 5_000));
const PEER_IN_FLIGHT = 32;
const RESULTS = path.resolve(import.meta.dirname, 'results');
const say = (what: string) => process.stderr.write(`bench:decisions ${new Date().toISOString()} ${what}\n`);

/** The peer: Update to a trivial workflow, then the approval's statements, per decision. */
async function peer(s: BenchStack, temporal: Client, ids: string[]): Promise<number> {
  const queue = `${s.taskQueue}-noop-trivial`;
  const workflowId = (id: string) => `trivial-${id}`;
  await pool(ids, 10, (id) =>
    temporal.workflow.start('trivialDecisionWorkflow', { taskQueue: queue, workflowId: workflowId(id) }),
  );
  // Every trivial workflow has run its first task and waits on the Update.
  await new Promise((r) => setTimeout(r, 3_000));
  const db = new pg.Pool({ connectionString: s.env.DATABASE_SYSTEM_URL, max: 10 });
  try {
    const day = today(systemClock);
    let applied = 0;
    const started = performance.now();
    await pool([...ids.keys()], PEER_IN_FLIGHT, async (i) => {
      const id = ids[i]!;
      const decision = {
        decision: 'APPROVED' as const,
        uhid: `UH-BENCH-${i}`,
        insurer_member_id: `M-BENCH-${i}`,
      };
      const answer = await temporal.workflow
        .getHandle(workflowId(id))
        .executeUpdate(insurerDecisionUpdate, { args: [{ source: 'bench', ...decision }] });
      if (answer.result !== 'accepted') throw new Error(`peer update answered ${answer.result}`);
      const insurerIds = { insurerMemberId: decision.insurer_member_id, uhid: decision.uhid };
      if ((await peerApproval(db, id, insurerIds, day)) === 'applied') applied++;
    });
    const ms = performance.now() - started;
    if (applied !== ids.length) throw new Error(`peer applied ${applied} of ${ids.length}`);
    return ms;
  } finally {
    await db.end();
  }
}

async function main(): Promise<void> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ghi-decisions-bench-'));
  process.env.DATA_DIR = dataDir;
  const s = await startBenchStack(N);
  try {
    await s.orm.em
      .getConnection()
      .execute(
        `update insurers set adapter = 'file', adapter_settings = '{"template":"generic","formats":["xlsx"]}' where code = 'BENCH'`,
      );
    const connection = await Connection.connect(temporalConnectionOptions(s.config));
    const temporal = new Client({ connection, dataConverter: payloadDataConverter(s.config) });
    const orm = await initOrm({
      databaseUrl: s.databaseUrl,
      systemDatabaseUrl: s.env.DATABASE_SYSTEM_URL!,
      poolMax: 5,
    });
    try {
      const [, filePolicy, apiPolicy, peerPolicy] = s.dataset.policyIds;
      const config = apiConfig(s.config);
      const base = { owner: s.orm, orm, temporal, config, dataDir, clientId: s.dataset.clientId };
      const ctx = { ...base, insurerCode: 'BENCH', endorsements: N };
      const load = () => os.loadavg().map((l) => Number(l.toFixed(2)));

      say(`${N} waiting for the response file`);
      const loadBefore = load();
      const file = await approvalsAfterResponseFile({ ...ctx, policyId: filePolicy!, idPrefix: 'end_file_' });
      say(`response file: ${Math.round(file.ours_ms)} ms`);

      say(`${N} waiting for the decisions API`);
      await startWaitingEndorsements({ ...ctx, policyId: apiPolicy!, idPrefix: 'end_api_' });
      const api = await decideThroughApi(s, apiPolicy!);
      if (api.accepted !== N) throw new Error(`decisions API accepted ${api.accepted} of ${N}`);
      say(`decisions API: ${api.applied_seconds.toFixed(1)} s`);

      say(`${N} waiting for the peer`);
      const peerIds = await startWaitingEndorsements({
        ...ctx,
        policyId: peerPolicy!,
        idPrefix: 'end_peer_',
      });
      const peerMs = await peer(s, temporal, peerIds);
      say(`peer: ${Math.round(peerMs)} ms`);

      const apiMs = api.applied_seconds * 1000;
      const figures = {
        at: new Date().toISOString(),
        decisions: N,
        load_average_before: loadBefore,
        load_average_after: load(),
        response_file: {
          ours_ms: Math.round(file.ours_ms),
          per_second: Number((N / (file.ours_ms / 1000)).toFixed(1)),
          exceljs_write_ms: Math.round(file.peer_ms),
        },
        decisions_api: {
          ours_ms: Math.round(apiMs),
          per_second: Number((N / api.applied_seconds).toFixed(1)),
          answered_ms: Math.round(api.seconds * 1000),
        },
        peer: { ms: Math.round(peerMs), per_second: Number((N / (peerMs / 1000)).toFixed(1)) },
        ratio_response_file: Number((peerMs / file.ours_ms).toFixed(3)),
        ratio_decisions_api: Number((peerMs / apiMs).toFixed(3)),
      };
      const md = [
        `Run ${figures.at}: ${N} approvals, load average ${loadBefore.join(' ')} before, ${figures.load_average_after.join(' ')} after.`,
        '',
        '| scenario | ours | peer: Updates to trivial workflows + the approval statements on pg | ratio (goal >= 0.8) |',
        '|---|---|---|---|',
        `| response file, ingest to all APPROVED | ${figures.response_file.ours_ms} ms (${figures.response_file.per_second}/s) | ${figures.peer.ms} ms (${figures.peer.per_second}/s) | ${figures.ratio_response_file} |`,
        `| POST /v1/insurer/decisions, to all APPROVED | ${figures.decisions_api.ours_ms} ms (${figures.decisions_api.per_second}/s) | ${figures.peer.ms} ms (${figures.peer.per_second}/s) | ${figures.ratio_decisions_api} |`,
        '',
      ].join('\n');
      await fs.mkdir(RESULTS, { recursive: true });
      await fs.writeFile(
        path.join(RESULTS, 'decisions-latest.json'),
        `${JSON.stringify(figures, null, 2)}\n`,
      );
      await fs.writeFile(path.join(RESULTS, 'decisions-latest.md'), md);
      process.stdout.write(md);
    } finally {
      await orm.close();
      await connection.close();
    }
  } finally {
    await s.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

await main();
