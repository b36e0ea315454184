import { parseArgs } from 'node:util';
import { OperatorRefusal } from '../domain/operator-refusal.js';
import {
  cancelAsOperator,
  findOverdueExits,
  findStuckEndorsements,
  formatAge,
  type OverdueExitRow,
  type StuckEndorsement,
} from '../admin/stuck.js';
import { ConfigError, requireDatabaseUrls, temporalUiBase, workflowUiUrl } from '../config/index.js';
import { operatorViews } from '../admin/views.js';
import { SystemScope } from '../data/scope.js';
import { initOrm } from '../db/orm.js';
import { systemClock, today } from '../domain/clock.js';
import { looksLikeId } from '../domain/ids.js';
import { operatorConfig } from '../infra/local-stack.js';
import { createTemporalClient } from '../infra/temporal-client.js';
import {
  describePeriodicSchedules,
  describeSchedules,
  ensurePeriodicSchedules,
  type ScheduleState,
} from '../usecases/schedules.js';
import { listCutOffScheduleIds, syncInsurerCutOffSchedules } from '../usecases/insurer-exchange/schedules.js';
import { syncRosterSchedules } from '../usecases/reconciliation/roster-schedules.js';
import { INSURER_INBOX_SCHEDULE_ID } from '../workflows/insurer-inbox/contract.js';
import { endLapsedCover } from '../usecases/member-cover.js';
import { durationMs } from '../workflows/endorsement/contract.js';
import { refuseBracketedArguments } from './command-args.js';

const USAGE = `usage:
  ops stuck [--older-than 3d] [--client CLIENT_ID] [--policy POLICY_ID] [--json]
  ops stuck --exits [--client CLIENT_ID] [--json]   leavers' exits still pending after the leaving date, with what blocks them
  ops cancel <endorsement_id> [--json]
  ops schedules [--create] [--json]   the periodic Schedules (reconcilers, sweeper, daily cover end, the insurer inbox poll) and each file insurer's cut-off (--create: create or update them)
  ops views [--insurer INSURER_ID] [--older-than 3d] [--json]   the Web UI list links for triage: stuck, SLA breached, awaiting funds, one insurer's backlog by age
  ops end-lapsed-cover [--json]   member rows whose coverage_end_date passed turn inactive (the daily pass)
(decisions: npm run -s insurer -- approve|reject <endorsement_id> …; see docs/operators/README.md)`;

class UsageError extends Error {}

const COLUMNS: [keyof StuckEndorsement | 'age', string][] = [
  ['endorsement_id', 'ENDORSEMENT'],
  ['status', 'STATUS'],
  ['age', 'AGE'],
  ['stuck', 'STUCK'],
  ['workflow', 'WORKFLOW'],
  ['type', 'TYPE'],
  ['employee_id', 'EMPLOYEE'],
  ['policy_number', 'POLICY'],
  ['client_id', 'CLIENT'],
  ['web_ui', 'WEB UI'],
];

/** A plain table for a terminal; ids and statuses only (no personal data). */
function table(rows: StuckEndorsement[]): string {
  if (rows.length === 0) return 'no stuck or old open endorsements';
  const cell = (r: StuckEndorsement, key: (typeof COLUMNS)[number][0]): string => {
    if (key === 'age') return formatAge(r.age_seconds);
    if (key === 'stuck') return r.stuck ? 'yes' : 'no';
    return String(r[key]).replace(/^ENDORSEMENT_(STATUS|TYPE)_/, '');
  };
  const cells = rows.map((r) => COLUMNS.map(([key]) => cell(r, key)));
  const header = COLUMNS.map(([, title]) => title);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  return [header, ...cells]
    .map((line) =>
      line
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** Overdue exits, one line each: ids, dates and the blocking endorsements' Web UI pages. */
function exitLines(rows: OverdueExitRow[]): string {
  if (rows.length === 0) return 'no exits pending past their leaving date';
  return rows
    .map((r) => {
      const blockers = r.blocked_by.map((b) => `${b.endorsement_id} ${b.web_ui}`).join(', ');
      return `${r.employee_id}  policy ${r.policy_id}  left ${r.date_of_leaving} (${r.days_overdue}d ago)  client ${r.client_id}  blocked by ${blockers || 'nothing open: create the DELETION'}`;
    })
    .join('\n');
}

function scheduleLines(rows: Awaited<ReturnType<typeof describePeriodicSchedules>>): string {
  return rows
    .map((r) => {
      if ('missing' in r) return `${r.schedule_id}  missing (ops schedules --create, or start a worker)`;
      const s: ScheduleState = r;
      const state = s.paused ? 'PAUSED' : 'active';
      const cadence = s.daily_at ? `daily at ${s.daily_at}` : `every ${s.interval_seconds}s`;
      return `${s.schedule_id}  ${state}  ${cadence}  runs ${s.actions_taken}  next ${s.next_run_at ?? '-'}  queue ${s.task_queue}`;
    })
    .join('\n');
}

/**
 * `ops schedules`: Temporal only; --create does what every worker does at start, and so also reads
 * the database for the file insurers' cut-off Schedules (D14).
 */
async function schedules(create: boolean, json: boolean): Promise<string> {
  const config = operatorConfig(create ? ['database', 'temporal'] : ['temporal']);
  const temporal = createTemporalClient(config);
  try {
    if (create) {
      await ensurePeriodicSchedules(temporal, config.TEMPORAL_TASK_QUEUE);
      const orm = await initOrm({ ...requireDatabaseUrls(config), poolMax: 2 });
      try {
        await syncInsurerCutOffSchedules(temporal, orm.em.fork(), config.TEMPORAL_TASK_QUEUE);
        await syncRosterSchedules(temporal, orm.em.fork(), config.TEMPORAL_TASK_QUEUE);
      } finally {
        await orm.close();
      }
    }
    const rows = [
      ...(await describePeriodicSchedules(temporal)),
      // The response-file poll (every file insurer's inbox), then each file insurer's cut-off.
      ...(await describeSchedules(temporal, [
        INSURER_INBOX_SCHEDULE_ID,
        ...(await listCutOffScheduleIds(temporal)),
      ])),
    ];
    return json ? JSON.stringify(rows, null, 2) : scheduleLines(rows);
  } finally {
    await temporal.connection.close();
  }
}

/** `ops views`: configuration only (the UI's address and namespace); nothing is read or written. */
function views(insurerId: string | undefined, olderThanMs: number | undefined, json: boolean): string {
  const config = operatorConfig(['temporal']);
  const rows = operatorViews({
    uiBase: temporalUiBase(config),
    namespace: config.TEMPORAL_NAMESPACE,
    insurerId,
    olderThanMs,
    now: new Date(),
  });
  if (json) return JSON.stringify(rows, null, 2);
  return rows.map((r) => `${r.view}\n  query  ${r.query}\n  open   ${r.web_ui}`).join('\n');
}

/** `ops end-lapsed-cover`: the database only; today is the business date (Asia/Kolkata). */
async function endLapsedCoverNow(json: boolean): Promise<string> {
  const config = operatorConfig(['database']);
  const orm = await initOrm({ ...requireDatabaseUrls(config), poolMax: 2 });
  try {
    const day = today(systemClock);
    const ended = await endLapsedCover(SystemScope.of(orm.em), day);
    return json
      ? JSON.stringify({ today: day, ended })
      : `ended the cover of ${ended} member rows (before ${day})`;
  } finally {
    await orm.close();
  }
}

/** Operators' commands on stuck endorsements: Temporal visibility joined with PostgreSQL. */
async function main(argv: string[]): Promise<string> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'older-than': { type: 'string' },
      client: { type: 'string' },
      policy: { type: 'string' },
      json: { type: 'boolean', default: false },
      create: { type: 'boolean', default: false },
      insurer: { type: 'string' },
      exits: { type: 'boolean', default: false },
    },
  });
  const [command, id] = positionals;
  if (command === 'schedules') return schedules(values.create, values.json);
  if (command === 'end-lapsed-cover') return endLapsedCoverNow(values.json);
  if (command !== 'stuck' && command !== 'cancel' && command !== 'views') throw new UsageError(USAGE);
  if (command === 'cancel' && (!id || !looksLikeId('endorsement', id)))
    throw new UsageError(`cancel needs an endorsement id\n${USAGE}`);
  let olderThanMs: number | undefined;
  try {
    olderThanMs = values['older-than'] === undefined ? undefined : durationMs(values['older-than']);
  } catch {
    throw new UsageError(`--older-than: not a duration such as 3d, 12h or 30m`);
  }

  if (command === 'views') return views(values.insurer, olderThanMs, values.json);

  const config = operatorConfig(['database', 'temporal']);
  const orm = await initOrm({ ...requireDatabaseUrls(config), poolMax: 2 });
  const temporal = createTemporalClient(config);
  try {
    const em = orm.em.fork();
    if (command === 'cancel') {
      const result = await cancelAsOperator({ temporal, config }, em, id!);
      return values.json ? JSON.stringify(result) : `${result.endorsement_id}: ${result.message}`;
    }
    const webUi = (workflowId: string) => workflowUiUrl(config, workflowId);
    if (values.exits) {
      const exits = await findOverdueExits(em, { clientId: values.client, now: new Date(), webUi });
      return values.json ? JSON.stringify(exits, null, 2) : exitLines(exits);
    }
    const rows = await findStuckEndorsements(temporal, em, {
      olderThanMs,
      clientId: values.client,
      policyId: values.policy,
      now: new Date(),
      webUi,
    });
    if (values.json) return JSON.stringify(rows, null, 2);
    // D16: exits pending past their leaving date are named here too; --exits lists them.
    const overdue = await findOverdueExits(em, { clientId: values.client, now: new Date(), webUi });
    const exitsLine = overdue.length
      ? `\nexits of leavers pending past the leaving date: ${overdue.length} (ops stuck --exits)`
      : '';
    return `${table(rows)}${exitsLine}`;
  } finally {
    await temporal.connection.close();
    await orm.close();
  }
}

refuseBracketedArguments(process.argv.slice(2));
main(process.argv.slice(2)).then(
  (out) => process.stdout.write(`${out}\n`),
  (err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    const known = err instanceof UsageError || err instanceof OperatorRefusal || err instanceof ConfigError;
    process.stderr.write(`${known ? message : `failed: ${message}`}\n`);
    process.exitCode = err instanceof UsageError ? 2 : 1;
  },
);
