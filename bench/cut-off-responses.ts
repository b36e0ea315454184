import fs from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import ExcelJS from 'exceljs';
import type { ApiConfig } from '../config/index.js';
import { TenantScope } from '../data/scope.js';
import type { Orm } from '../db/orm.js';
import { fileTemplate } from '../domain/insurer-exchange/file-templates/index.js';
import { flushInsurer } from '../usecases/insurer-exchange/cut-off.js';
import { ingestInboxFiles } from '../usecases/insurer-exchange/inbox.js';
import { startEndorsementWorkflow } from '../usecases/endorsements/endorsements.js';
import { ENDORSEMENT_WORKFLOW } from '../workflows/endorsement/contract.js';
import { INSURER_INBOX_SCHEDULE_ID } from '../workflows/insurer-inbox/contract.js';

/**
 * The cut-off bench's second half: the insurer's answer. `endorsements` real endorsement workflows
 * (started as the API starts them, reviewed and queued by the worker, sent by a cut-off) wait for the
 * insurer; a response file approving every one lands in its inbox and the time runs from ingesting it
 * (`insurer ingest`: read, one decision Update per row, acknowledgement) until every endorsement is
 * APPROVED in PostgreSQL (each workflow's approval transaction done). The peer writes the same
 * response rows with exceljs alone.
 */
export interface ResponseBenchContext {
  owner: Orm;
  orm: Orm;
  temporal: Client;
  config: ApiConfig;
  dataDir: string;
  clientId: string;
  policyId: string;
  insurerCode: string;
  endorsements: number;
  /** The endorsement ids' prefix (`end_live_` unless given): several policies seeded in one database. */
  idPrefix?: string;
}

const STARTS_IN_FLIGHT = 20;
const SENT = 'ENDORSEMENT_STATUS_SENT_TO_INSURER';
const WAIT_MS = 1_800_000;

export async function approvalsAfterResponseFile(
  ctx: ResponseBenchContext,
): Promise<{ ours_ms: number; peer_ms: number; setup_ms: number }> {
  const setupStarted = performance.now();
  const ids = await startWaitingEndorsements(ctx);
  // The worker's inbox Schedule would ingest the file on its own and leave the timed ingest only duplicates.
  await ctx.temporal.schedule.getHandle(INSURER_INBOX_SCHEDULE_ID).pause('the bench times its own ingest');
  const table = responseTable(ids);
  const inbox = path.join(ctx.dataDir, 'insurers', ctx.insurerCode, 'inbox');
  await fs.mkdir(inbox, { recursive: true });
  await fs.writeFile(path.join(inbox, 'responses.xlsx'), await xlsx(table));
  const setup_ms = performance.now() - setupStarted;

  const started = performance.now();
  const [file] = await ingestInboxFiles(
    {
      em: ctx.orm.em.fork(),
      temporal: ctx.temporal,
      dataDir: ctx.dataDir,
      taskQueue: ctx.config.TEMPORAL_TASK_QUEUE,
    },
    { insurerCode: ctx.insurerCode },
  );
  if (file?.counts.accepted !== ctx.endorsements)
    throw new Error(`response file: ${JSON.stringify(file?.counts)} of ${ctx.endorsements}`);
  await until(ctx, `status = 'ENDORSEMENT_STATUS_APPROVED'`, 'APPROVED');
  const ours_ms = performance.now() - started;

  const t = performance.now();
  await fs.writeFile(path.join(ctx.dataDir, 'peer-responses.xlsx'), await xlsx(table));
  return { ours_ms, peer_ms: performance.now() - t, setup_ms };
}

/** Endorsements written as the API writes them, their workflows started, queued, then sent by a cut-off. */
export async function startWaitingEndorsements(ctx: ResponseBenchContext): Promise<string[]> {
  const conn = ctx.owner.em.getConnection();
  await conn.execute(`delete from endorsements where policy_id = ?`, [ctx.policyId]);
  const rows = await conn.execute<{ id: string; employee_id: string }[]>(
    `insert into endorsements (id, client_id, policy_id, employee_id, type, status, coverage_start_date,
       coverage_end_date, premium_impact, sum_insured)
     select ? || g, ?, ?, 'emp_bench' || g, 'ENDORSEMENT_TYPE_ADDITION',
            'ENDORSEMENT_STATUS_PENDING', date '2026-12-01', date '2027-01-31', 3650, 300000
       from generate_series(1, ?) g
     returning id, employee_id`,
    [ctx.idPrefix ?? 'end_live_', ctx.clientId, ctx.policyId, ctx.endorsements],
  );
  for (let i = 0; i < rows.length; i += STARTS_IN_FLIGHT) {
    await Promise.all(
      rows.slice(i, i + STARTS_IN_FLIGHT).map((r) =>
        retried(() =>
          startEndorsementWorkflow(ctx, TenantScope.of(ctx.orm.em.fork(), ctx.clientId), {
            id: r.id,
            clientId: ctx.clientId,
            policyId: ctx.policyId,
            employeeId: r.employee_id,
            type: 'ENDORSEMENT_TYPE_ADDITION',
          }),
        ),
      ),
    );
  }
  const query = `WorkflowType = '${ENDORSEMENT_WORKFLOW}' AND EndorsementStatus = '${SENT}'`;
  await until(ctx, 'cut_off_queued_at is not null', 'queued for the cut-off');
  // Other policies' endorsements may wait already (bench/decisions.ts seeds several).
  const sentBefore = (await ctx.temporal.workflow.count(query)).count;
  await flushInsurer(
    { em: ctx.orm.em.fork(), temporal: ctx.temporal, taskQueue: ctx.config.TEMPORAL_TASK_QUEUE },
    ctx.insurerCode,
    new Date(),
  );
  // Every workflow has taken the cut-off's signal and waits for the insurer (its search attribute says so).
  await until(ctx, `status = '${SENT}'`, 'sent');
  await poll(
    async () => (await ctx.temporal.workflow.count(query)).count >= sentBefore + ctx.endorsements,
    'sent',
  );
  return rows.map((r) => r.id);
}

/** A start past its deadline on a busy machine is tried again: the workflow id makes it idempotent. */
async function retried(start: () => Promise<void>, attempts = 5): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (err) {
      if (attempt >= attempts) throw err;
    }
  }
}

function responseTable(ids: string[]): string[][] {
  const layout = fileTemplate('generic').response;
  const values = (id: string, i: number): Record<string, string> => ({
    reference: id,
    decision: layout.decisions.APPROVED,
    uhid: `UH-BENCH-${i}`,
    insurer_member_id: `M-BENCH-${i}`,
    rejection_reason: '',
  });
  return [
    layout.columns.map((c) => c.header),
    ...ids.map((id, i) => layout.columns.map((c) => values(id, i)[c.field] ?? '')),
  ];
}

async function xlsx(table: string[][]): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  book.addWorksheet('Responses').addRows(table);
  return Buffer.from(await book.xlsx.writeBuffer());
}

async function until(ctx: ResponseBenchContext, condition: string, what: string): Promise<void> {
  const conn = ctx.owner.em.getConnection();
  await poll(async () => {
    const [row] = await conn.execute<{ n: string }[]>(
      `select count(*) as n from endorsements where policy_id = ? and ${condition}`,
      [ctx.policyId],
    );
    return Number(row!.n) >= ctx.endorsements;
  }, what);
}

async function poll(done: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`endorsements not all ${what} in time`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
