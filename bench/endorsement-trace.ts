import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { payloadDataConverter, temporalConnectionOptions } from '../infra/temporal-client.js';
import { endorsementWorkflowId, simulatedInsurerWorkflowId } from '../workflows/endorsement/contract.js';
import { additionBody } from './endorsements.js';
import { median } from './measure.js';
import { startBenchStack, type BenchStack } from './stack.js';
import { countByType, traceHistory, type TracedEvent } from './trace/history.js';
import { readTransactions, shortSql, workStatements, type Transaction } from './trace/sql.js';

/**
 * `node --import tsx bench/endorsement-trace.ts`: one ADDITION, create -> APPROVED with the
 * simulated insurer at zero delay, on the bench's own stack, one in flight after two warm-ups
 * (`--runs N`: N timed one after another, the median quoted, the last one traced).
 * Prints (markdown) what it cost in load-independent counts: workflow tasks, activities, timers,
 * workflows, history events by type, SQL transactions and statements per step, and the timeline
 * from the histories' event times. docs/performance.md quotes it.
 */
const sqlFile = path.join(os.tmpdir(), `ghi-trace-sql-${process.pid}.jsonl`);
process.env.TRACE_SQL_FILE = sqlFile;
const hook = path.resolve(import.meta.dirname, 'trace/sql-hook.mjs');
process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --import ${hook}`.trim();

const WARM_UPS = 2;
/** `--runs N` (default 1): endorsements timed one after another; the last one is traced. */
const runsAt = process.argv.indexOf('--runs');
const RUNS = runsAt > 0 ? Math.max(1, Number(process.argv[runsAt + 1]) || 1) : 1;

async function status(s: BenchStack, id: string): Promise<string | undefined> {
  const [row] = await s.orm.em
    .fork()
    .execute<{ status: string }[]>('select status from endorsements where id = ?', [id]);
  return row?.status;
}

/** Creates one endorsement through the API and polls until APPROVED; times in epoch ms. */
async function oneEndorsement(s: BenchStack, employeeId: string) {
  const sent = Date.now();
  const res = await fetch(`${s.apiUrl}/v1/policy/endorsements`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
    body: additionBody(employeeId, s.dataset.policyIds[3]!),
  });
  const answered = Date.now();
  const body = (await res.json()) as { payload: { endorsement_id: string } };
  const id = body.payload.endorsement_id;
  const deadline = sent + 60_000;
  while ((await status(s, id)) !== 'ENDORSEMENT_STATUS_APPROVED') {
    if (Date.now() > deadline) throw new Error(`endorsement ${id} not APPROVED within 60 s`);
    await new Promise((r) => setTimeout(r, 2));
  }
  return { id, sent, answered, approved: Date.now() };
}

async function histories(temporal: Client, id: string): Promise<TracedEvent[]> {
  const events: TracedEvent[] = [];
  const ids = [
    ['endorsement', endorsementWorkflowId(id)],
    ['simulated insurer', simulatedInsurerWorkflowId(id)],
  ] as const;
  for (const [label, workflowId] of ids) {
    const handle = temporal.workflow.getHandle(workflowId);
    try {
      await handle.result();
    } catch {
      continue; // no such workflow (the insurer decided without one)
    }
    events.push(...traceHistory(label, (await handle.fetchHistory()).events ?? []));
  }
  return events.sort((a, b) => a.at - b.at);
}

/** The step a worker transaction ran in: the activity, or else the workflow task, covering its start. */
function stepOf(tx: Transaction, events: TracedEvent[]): string {
  const started = events.filter((e) => e.type === 'ACTIVITY_TASK_STARTED' && e.at <= tx.start + 5);
  for (const s of started.reverse()) {
    const done = events.find(
      (e) =>
        e.type === 'ACTIVITY_TASK_COMPLETED' &&
        e.what === s.what &&
        e.at >= s.at &&
        e.workflow === s.workflow,
    );
    if (!done || tx.start <= done.at + 5) return `activity ${s.what}`;
  }
  // Local activities run inside a workflow task: between its start and its completion.
  const tasks = events.filter((e) => e.type === 'WORKFLOW_TASK_STARTED');
  for (const [n, task] of tasks.entries()) {
    const done = events.find((e) => e.type === 'WORKFLOW_TASK_COMPLETED' && e.at >= task.at);
    if (task.at <= tx.start + 5 && (!done || tx.start <= done.at + 5))
      return `workflow task ${n + 1} (local activities)`;
  }
  return 'worker, outside an activity';
}

function report(run: Awaited<ReturnType<typeof oneEndorsement>>, events: TracedEvent[], txs: Transaction[]) {
  const out: string[] = [];
  const rel = (t: number) => `+${t - run.sent}`;
  const count = (type: string, workflow?: string) =>
    events.filter((e) => e.type === type && (!workflow || e.workflow === workflow)).length;
  const workflows = [...new Set(events.map((e) => e.workflow))];
  const activities = events.filter((e) => e.type === 'ACTIVITY_TASK_SCHEDULED').map((e) => e.what);
  out.push(
    `endorsement ${run.id}: POST answered ${rel(run.answered)} ms, APPROVED seen ${rel(run.approved)} ms`,
  );
  out.push('', '| count | value |', '| --- | --- |');
  out.push(`| workflows | ${workflows.length} (${workflows.join(', ')}) |`);
  out.push(`| workflow tasks (completed) | ${count('WORKFLOW_TASK_COMPLETED')} |`);
  out.push(`| activities | ${activities.length} (${activities.join(', ')}) |`);
  out.push(`| timers started | ${count('TIMER_STARTED')} |`);
  out.push(`| updates accepted | ${count('WORKFLOW_EXECUTION_UPDATE_ACCEPTED')} |`);
  out.push(`| history events | ${events.length} |`);

  out.push(
    '',
    '| event type | ' + workflows.join(' | ') + ' |',
    '| --- |' + workflows.map(() => ' --- |').join(''),
  );
  const byWorkflow = workflows.map((w) => countByType(events.filter((e) => e.workflow === w)));
  for (const type of [...countByType(events).keys()].sort())
    out.push(`| ${type} | ${byWorkflow.map((c) => c.get(type) ?? 0).join(' | ')} |`);

  const api = txs.filter((t) => t.entry.startsWith('api') && t.start >= run.sent && t.start <= run.answered);
  const worker = txs.filter(
    (t) =>
      t.entry.startsWith('worker') && t.start >= run.sent && t.statements.some((s) => s.includes(run.id)),
  );
  const steps = new Map<string, Transaction[]>([['API create', api]]);
  for (const tx of worker) {
    const step = stepOf(tx, events);
    steps.set(step, [...(steps.get(step) ?? []), tx]);
  }
  out.push('', '| step | transactions | statements | what |', '| --- | --- | --- | --- |');
  for (const [step, list] of steps) {
    const statements = list.flatMap(workStatements);
    out.push(`| ${step} | ${list.length} | ${statements.length} | ${statements.map(shortSql).join('; ')} |`);
  }

  out.push('', '```', `+${0} ms client POST /v1/policy/endorsements`);
  for (const e of events) out.push(`${rel(e.at)} ms ${e.workflow}: ${e.type}${e.what ? ` (${e.what})` : ''}`);
  out.push(`${rel(run.approved)} ms client sees APPROVED`, '```');
  return out.join('\n');
}

async function main() {
  const s = await startBenchStack(20);
  const connection = await Connection.connect(temporalConnectionOptions(s.config));
  const temporal = new Client({ connection, dataConverter: payloadDataConverter(s.config) });
  try {
    const employees = s.dataset.employeeIds;
    for (let i = 0; i < WARM_UPS; i++) await oneEndorsement(s, employees[i]!);
    await new Promise((r) => setTimeout(r, 500));
    // More runs, one at a time, for the create -> APPROVED median; the last one is traced.
    const latencies: number[] = [];
    let run = await oneEndorsement(s, employees[WARM_UPS]!);
    for (let i = 1; i <= RUNS; i++) {
      latencies.push(run.approved - run.sent);
      if (i < RUNS) run = await oneEndorsement(s, employees[WARM_UPS + i]!);
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    console.log(
      `create -> APPROVED over ${RUNS} runs, one in flight: median ${median(sorted)} ms (${sorted.join(', ')})`,
    );
    const events = await histories(temporal, run.id);
    console.log(report(run, events, readTransactions(sqlFile)));
  } finally {
    await connection.close();
    await s.stop();
    fs.rmSync(sqlFile, { force: true });
  }
}

await main();
