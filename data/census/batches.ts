import type { CensusSnapshot, PlanEmployee, PlanPolicy, RowPlan } from '../../domain/census/plan.js';
import type { PlanDependent, StoredDetails } from '../../domain/census/snapshot.js';
import type { CensusBatchStatus, CensusRowOutcome } from '../../domain/census/batch.js';
import { inTurns } from '../../domain/upload-limits.js';
import { jsonbLiteral } from '../bulk-json.js';
import { exitModeOf } from '../endorsements/exits.js';
import { activeOnSql } from '../member-cover.js';
import { outboxSql } from '../webhooks/outbox.js';
import { readPage, type CursorCodec, type Page, type PageRequest } from '../paging.js';
import type { TenantScope } from '../scope.js';
import { OPEN_STATUS_SQL, prepared, type Statement } from '../sql.js';

/**
 * The employees a census names, by code or by a row's e-mail, in a union of two semi-joins. The
 * values go in as array literals (`= any(array[...])`), whose length the planner knows: thousands of
 * names are hashed against the client's rows, a handful looked up by index.
 */
const NAMED_SQL = `select n.id from employees n
                    where n.client_id = ? and n.employee_code = any(array[?]::text[])
                   union
                   select n.id from employees n join users nu on nu.id = n.user_id
                    where n.client_id = ? and nu.email_key = any(array[?]::text[])`;

type Cover = PlanEmployee['cover'][number];
/** readNamedEmployees' rows, as the arrays its statement aggregates them into (in this order). */
type EmployeeRow = [id: string, employee_code: string, email_key: string];
type DetailsRow = [
  id: string,
  name: StoredDetails['name'],
  email: StoredDetails['email'],
  phone_number: StoredDetails['phone_number'],
  date_of_birth: StoredDetails['date_of_birth'],
  gender: StoredDetails['gender'],
  status: StoredDetails['status'],
];
type CoverRow = [
  employee_id: string,
  policy_id: string,
  sum_insured: Cover['sum_insured'],
  start: string,
  end: string,
];
type OpenRow = [employee_id: string, policy_id: string, endorsement_id: string];
/** A dependent with one of its covers (the cover's fields null when it has none on the day). */
type FamilyRow = Omit<PlanDependent, 'cover'> & { employee_id: string } & {
  [K in keyof PlanDependent['cover'][number]]: PlanDependent['cover'][number][K] | null;
};

/** The client's ACTIVE policies with their available CD balance, and its exit mode (two statements at once). */
export async function readCensusPolicies(
  scope: TenantScope,
): Promise<Pick<CensusSnapshot, 'policies' | 'exit_mode'>> {
  const c = scope.clientId;
  const [policies, exitMode] = await Promise.all([
    scope.sql<PlanPolicy>(
      `select p.id, p.policy_number, p.start_date::text as start_date, p.end_date::text as end_date, p.slabs,
              p.default_sum_insured::text as default_sum_insured,
              (select i.code from insurers i where i.id = p.insurer_id) as insurer_code,
              (p.cd_balance - p.cd_held)::text as cd_available,
              exists (select 1 from endorsements w
                       where w.client_id = p.client_id and w.policy_id = p.id and w.awaiting_funds_since is not null
                         and w.status = 'ENDORSEMENT_STATUS_PENDING') as cd_waiting,
              p.coverage_type, coalesce(p.eligibility, '{}'::jsonb) as eligibility
         from policies p where p.client_id = ? and p.status = 'POLICY_STATUS_ACTIVE'`,
      [c],
    ),
    exitModeOf(scope),
  ]);
  return { policies, exit_mode: exitMode };
}

/** What a census's read names: codes and e-mail keys of employees, and the codes whose details rows restate. */
export interface CensusNames {
  codes: readonly string[];
  emailKeys: readonly string[];
  /** Codes of employees a row restates details of (D16's upsert compares them): their details are read. */
  detailCodes: readonly string[];
}

/** An employee found, or their stored details read (by employee id). */
export interface NamedEmployees {
  employees: PlanEmployee[];
  details: Map<string, StoredDetails>;
}

/**
 * The employees named by code or by a row's e-mail, with their own cover on `today` (D10) and their
 * open endorsements, and the stored details of those whose codes a row restating details gives
 * (personal data, read for no one else); their dependents are readFamilies'. Planned for 10,000
 * names: one statement, the employees named matched once (NAMED_SQL), then their own members and
 * open endorsements (a literal status list, as the partial index endorsements_one_open's),
 * hash-joined for thousands of names, looked up by index (policy_members_employee) for a few. Each
 * set comes back as one JSON array of positional arrays (no per-employee subquery: one aggregate a
 * set), put together here by employee id: the driver then decodes four values, not a value per
 * column of every row, which took a dry run's API more CPU than reading the rows took PostgreSQL.
 */
export async function readNamedEmployees(
  scope: TenantScope,
  { codes, emailKeys, detailCodes }: CensusNames,
  today: string,
): Promise<NamedEmployees> {
  const c = scope.clientId;
  const [read] = await scope.sql<{
    people: EmployeeRow[];
    covers: CoverRow[];
    opens: OpenRow[];
    details: DetailsRow[];
  }>(
    `with named as materialized (${NAMED_SQL})
     select
       (select coalesce(json_agg(json_build_array(e.id, e.employee_code, u.email_key)), '[]')
          from employees e join users u on u.id = e.user_id
         where e.client_id = ? and e.id in (select id from named)) as people,
       (select coalesce(json_agg(json_build_array(m.employee_id, m.policy_id, m.sum_insured::text,
                  m.coverage_start_date::text, m.coverage_end_date::text)), '[]')
          from policy_members m
         where m.client_id = ? and m.employee_id in (select id from named) and m.dependent_id is null
           and ${activeOnSql('m')}) as covers,
       (select coalesce(json_agg(json_build_array(o.employee_id, o.policy_id, o.id)), '[]')
          from endorsements o
         where o.client_id = ? and o.employee_id in (select id from named)
           and o.status in ${OPEN_STATUS_SQL}) as opens,
       (select coalesce(json_agg(json_build_array(d.id, d.name, d.email, d.phone_number,
                  d.date_of_birth::text, d.gender, d.status)), '[]')
          from employees d
         where d.client_id = ? and d.employee_code = any(array[?]::text[])) as details`,
    [c, codes, c, emailKeys, c, c, today, c, c, detailCodes],
  );
  const employees = new Map<string, PlanEmployee>();
  for (const [id, employee_code, email_key] of read!.people)
    employees.set(id, { id, employee_code, email_key, cover: [], open: [] });
  for (const [employeeId, policy_id, sum_insured, start, end] of read!.covers)
    employees.get(employeeId)?.cover.push({ policy_id, sum_insured, start, end });
  for (const [employeeId, policy_id, endorsement_id] of read!.opens)
    employees.get(employeeId)?.open.push({ policy_id, endorsement_id });
  const details = new Map<string, StoredDetails>();
  for (const [id, name, email, phone_number, date_of_birth, gender, status] of read!.details)
    details.set(id, { name, email, phone_number, date_of_birth, gender, status });
  return { employees: [...employees.values()], details };
}

/**
 * The dependents of the employees with these codes, each with its own cover on `today` (D10), by
 * employee id (an employee without dependents is absent). Read only for the employees a dependent's
 * row names: no other row's plan looks at a family, and in a census of joiners the families would be
 * most of the rows read. One statement, a flat row per dependent and cover.
 */
export async function readFamilies(
  scope: TenantScope,
  codes: readonly string[],
  today: string,
): Promise<Map<string, PlanDependent[]>> {
  const families = new Map<string, PlanDependent[]>();
  if (codes.length === 0) return families;
  const rows = await scope.sql<FamilyRow>(
    `select d.employee_id, d.id, d.relationship, d.name, d.date_of_birth::text as date_of_birth,
            d.event_date::text as event_date, m.policy_id, m.sum_insured::text as sum_insured,
            m.coverage_start_date::text as start, m.coverage_end_date::text as end
       from dependents d
       left join policy_members m on m.client_id = d.client_id and m.dependent_id = d.id and ${activeOnSql('m')}
      where d.client_id = ?
        and d.employee_id in (select e.id from employees e where e.client_id = ? and e.employee_code = any(array[?]::text[]))
      order by d.employee_id, d.created_at, d.id`,
    [today, scope.clientId, scope.clientId, codes],
  );
  let last: PlanDependent | undefined;
  for (const r of rows) {
    if (last?.id !== r.id) {
      const { id, relationship, name, date_of_birth, event_date } = r;
      last = { id, relationship, name, date_of_birth, event_date, cover: [] };
      const family = families.get(r.employee_id);
      if (family) family.push(last);
      else families.set(r.employee_id, [last]);
    }
    if (r.policy_id !== null && r.start !== null && r.end !== null)
      last.cover.push({ policy_id: r.policy_id, sum_insured: r.sum_insured, start: r.start, end: r.end });
  }
  return families;
}

/** A census row as staged at commit: its plan, and a new employee's details (personal data). */
export interface StagedRow {
  plan: RowPlan;
  person: Record<string, string> | null;
}

/**
 * Stores a committed census: the batch RUNNING and every row with its plan (a row with errors gets
 * its INVALID outcome at once), in one transaction: the batch, then its rows ROWS_PER_TURN to a
 * statement (D18: serialising a piece holds the event loop a few milliseconds; 10,000 rows escaped
 * as one literal held it for seconds). Not deduplicated by content: the Idempotency-Key is how a
 * client retries a commit safely.
 */
export async function insertCensusBatch(
  scope: TenantScope,
  batch: { id: string; totals: object; actorTokenId: string | null },
  rows: readonly StagedRow[],
): Promise<void> {
  await scope.transaction(async (tx) => {
    await tx.sql(
      `insert into census_batches (id, client_id, status, row_count, totals, actor_token_id)
       values (?, ?, 'BATCH_STATUS_RUNNING', ?, ?::jsonb, ?)`,
      [batch.id, tx.clientId, rows.length, JSON.stringify(batch.totals), batch.actorTokenId],
    );
    for await (const piece of inTurns(rows)) {
      const staged = piece.map((r) => ({
        row_number: r.plan.row,
        employee_code: r.plan.employee_code,
        person: r.person,
        plan: r.plan,
        outcome: r.plan.status === 'ok' ? null : 'INVALID',
        reason:
          r.plan.status === 'ok' ? null : r.plan.errors.map((e) => `${e.field}: ${e.reason}`).join('; '),
      }));
      await tx.sql(
        `insert into census_batch_rows (batch_id, row_number, client_id, employee_code, person, plan, outcome, reason, applied_at)
         select ?, r.row_number, ?, r.employee_code, r.person, r.plan, r.outcome, r.reason,
                case when r.outcome is null then null else now() end
           from jsonb_to_recordset(${jsonbLiteral(staged)})
             as r(row_number integer, employee_code text, person jsonb, plan jsonb, outcome text, reason text)`,
        [batch.id, tx.clientId],
      );
    }
  });
}

/** A staged row as its apply reads it, under its row lock. */
export interface PendingRow {
  outcome: CensusRowOutcome | null;
  plan: RowPlan;
  person: Record<string, string> | null;
  actor_token_id: string | null;
  /** The client's employee with the row's code when the row was locked (null: none then). */
  employee_id: string | null;
}

/**
 * The savepoint a row's writes run in (usecases/census/apply.ts): opened in the message of the row's
 * lock and closed in the message of the next row's lock (or, after a transaction's last row, in one of
 * its own), together with the row's outcome, so a row costs no round trip for either (a nested
 * transaction of the ORM sends SAVEPOINT and RELEASE each on its own, and the outcome was a third).
 * Closed before the next one opens, so rows never nest; the transaction must be open (PostgreSQL
 * refuses a savepoint outside one).
 */
const ROW_SAVEPOINT = 'census_row';
const savepointSql = (verb: 'savepoint' | 'release savepoint' | 'rollback to savepoint') => ({
  query: `${verb} ${ROW_SAVEPOINT}`,
  params: [],
});

/** A row's outcome as its apply sets it (INVALID rows are set at staging). */
export interface RowOutcome {
  outcome: Extract<CensusRowOutcome, 'APPLIED' | 'FAILED'>;
  employeeId: string | null;
  endorsementId: string | null;
  reason: string | null;
}

/**
 * How a locked row's savepoint closes: its writes kept or undone (a refused row's), then its outcome
 * set once (guarded: an outcome already there stays); no outcome for a row that had one when locked.
 */
export interface RowClose {
  row: number;
  writes: 'keep' | 'undo';
  outcome?: RowOutcome;
}

/**
 * The statements that close a row's savepoint. Undone rolls back to the savepoint first, which also
 * brings back a transaction a refused statement aborted, so they may lead any message.
 */
function closeStatements(tx: TenantScope, batchId: string, c: RowClose): Statement[] {
  const close: Statement[] = [savepointSql('release savepoint')];
  if (c.writes === 'undo') close.unshift(savepointSql('rollback to savepoint'));
  if (!c.outcome) return close;
  const o = c.outcome;
  return [
    ...close,
    rowOutcomeStatement([o.outcome, o.employeeId, o.endorsementId, o.reason, tx.clientId, batchId, c.row]),
  ];
}

/** A row's outcome, set once (prepared: every applied row sends it). */
const rowOutcomeStatement = prepared(
  'census_row_outcome',
  `update census_batch_rows set outcome = ?, employee_id = ?, endorsement_id = ?, reason = ?, applied_at = now()
    where client_id = ? and batch_id = ? and row_number = ? and outcome is null`,
);

/** lockCensusRow's read (prepared: every applied row sends it). */
const rowLockStatement = prepared(
  'census_row_lock',
  `select r.outcome, r.plan, r.person, b.actor_token_id,
          (select e.id from employees e
            where e.client_id = r.client_id and e.employee_code = r.employee_code) as employee_id
     from census_batch_rows r join census_batches b on b.id = r.batch_id
    where r.client_id = ? and r.batch_id = ? and r.row_number = ? for update of r`,
);

/**
 * Locks one staged row (serialising its apply attempts) and reads it, with the employee its code
 * names (one round trip where a lookup of its own was a second); undefined if none. The message
 * first closes the savepoint of the transaction's previous row (`previous`), and after the lock
 * (which stays whatever the row's writes do) opens this row's: closeCensusRow, or the next row's
 * lock, closes it, whatever was found.
 */
export async function lockCensusRow(
  tx: TenantScope,
  batchId: string,
  row: number,
  previous?: RowClose,
): Promise<PendingRow | undefined> {
  const before = previous ? closeStatements(tx, batchId, previous) : [];
  const answers = await tx.message([
    ...before,
    rowLockStatement([tx.clientId, batchId, row]),
    savepointSql('savepoint'),
  ]);
  return (answers[before.length] as PendingRow[])[0];
}

/** Closes the transaction's last row's savepoint, with its outcome, in a message of its own. */
export async function closeCensusRow(tx: TenantScope, batchId: string, c: RowClose): Promise<void> {
  await tx.message(closeStatements(tx, batchId, c));
}

/** A row still without an outcome, with the earlier row that creates its employee (if any). */
export interface PendingRowNumber {
  row: number;
  employeeRow: number | null;
}

/** The rows of a range still without an outcome. */
export async function pendingCensusRows(
  scope: TenantScope,
  batchId: string,
  range: { from: number; to: number },
): Promise<PendingRowNumber[]> {
  return scope.sql<PendingRowNumber>(
    `select row_number as "row", (plan->>'employee_row')::int as "employeeRow" from census_batch_rows
      where client_id = ? and batch_id = ? and row_number between ? and ? and outcome is null
      order by row_number`,
    [scope.clientId, batchId, range.from, range.to],
  );
}

/** The rows, anywhere in the batch, still without an outcome whose employee a row of the range creates. */
export async function pendingRowsOfEmployeesIn(
  scope: TenantScope,
  batchId: string,
  range: { from: number; to: number },
): Promise<number[]> {
  const rows = await scope.sql<{ row_number: number }>(
    `select row_number from census_batch_rows
      where client_id = ? and batch_id = ? and outcome is null
        and (plan->>'employee_row')::int between ? and ?
      order by row_number`,
    [scope.clientId, batchId, range.from, range.to],
  );
  return rows.map((r) => r.row_number);
}

/** A row's outcome as a later row of its employee reads it (undefined: no such row). */
export async function censusRowOutcome(
  tx: TenantScope,
  batchId: string,
  row: number,
): Promise<{ outcome: CensusRowOutcome | null; reason: string | null } | undefined> {
  const [r] = await tx.sql<{ outcome: CensusRowOutcome | null; reason: string | null }>(
    'select outcome, reason from census_batch_rows where client_id = ? and batch_id = ? and row_number = ?',
    [tx.clientId, batchId, row],
  );
  return r;
}

/**
 * The endorsements a row `r` made, as `e`: its own (`endorsement_id`), and for an exit every
 * DELETION of the employee's own cover that this batch made (an exit row makes one per policy;
 * each stores its batch, migration 0023). Both arms are index lookups (primary key,
 * endorsements_batch), so a page of rows does not scan the endorsements.
 */
const ROW_ENDORSEMENT_SQL = `e.client_id = r.client_id and (e.id = r.endorsement_id
  or (jsonb_typeof(r.plan->'exit') = 'object' and e.batch_id = r.batch_id and e.employee_id = r.employee_id
      and e.dependent_id is null and e.type = 'ENDORSEMENT_TYPE_DELETION'))`;

/** Endorsements made by a range's applied rows and by `also` rows, for their workflow starts (ids only). */
export async function appliedCensusEndorsements(
  scope: TenantScope,
  batchId: string,
  range: { from: number; to: number },
  also: readonly number[] = [],
): Promise<
  { id: string; policy_id: string; employee_id: string; type: string; workflow_started: boolean }[]
> {
  return scope.sql(
    `select distinct on (r.row_number, e.id) e.id, e.policy_id, e.employee_id, e.type,
            e.workflow_started_at is not null as workflow_started
       from census_batch_rows r join endorsements e on ${ROW_ENDORSEMENT_SQL}
      where r.client_id = ? and r.batch_id = ? and r.outcome = 'APPLIED'
        and (r.row_number between ? and ? or r.row_number in (select jsonb_array_elements_text(?::jsonb)::int))
      order by r.row_number, e.id`,
    [scope.clientId, batchId, range.from, range.to, JSON.stringify(also)],
  );
}

const COUNTS_SQL = `(select jsonb_build_object(
    'pending', count(*) filter (where r.outcome is null),
    'applied', count(*) filter (where r.outcome = 'APPLIED'),
    'failed', count(*) filter (where r.outcome = 'FAILED'),
    'invalid', count(*) filter (where r.outcome = 'INVALID'))
  from census_batch_rows r where r.client_id = b.client_id and r.batch_id = b.id)`;

export interface BatchSummary {
  id: string;
  status: CensusBatchStatus;
  row_count: number;
  counts: Record<'pending' | 'applied' | 'failed' | 'invalid', number>;
  totals: Record<string, unknown>;
  created_at: string;
  completed_at: string | null;
}

/** One of the scope's batches with its counts by outcome, or undefined. */
export async function readCensusBatch(scope: TenantScope, id: string): Promise<BatchSummary | undefined> {
  const [row] = await scope.sql<BatchSummary>(
    `select b.id, b.status, b.row_count, ${COUNTS_SQL} as counts, b.totals,
            to_char(b.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at,
            to_char(b.completed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as completed_at
       from census_batches b where b.client_id = ? and b.id = ?`,
    [scope.clientId, id],
  );
  return row;
}

/**
 * Completes a batch once every row has an outcome: status COMPLETED and its
 * `endorsement_batch.completed` event (ids and counts only) in one statement. Idempotent: only a
 * RUNNING batch without pending rows moves, and the event's dedupe key records it once. Returns the
 * webhook deliveries to start, or null while rows are pending.
 */
export async function completeCensusBatch(scope: TenantScope, id: string): Promise<string[] | null> {
  const outbox = outboxSql('change', 'endorsement_batch.completed');
  const [row] = await scope.sql<{ pending: number; deliveries: string[] }>(
    `with counted as (select b.id, ${COUNTS_SQL} as counts from census_batches b where b.client_id = ? and b.id = ?),
     done as (
       update census_batches b set status = 'BATCH_STATUS_COMPLETED', completed_at = now()
         from counted c
        where b.client_id = ? and b.id = c.id and b.status = 'BATCH_STATUS_RUNNING'
          and (c.counts->>'pending')::int = 0
       returning b.client_id, b.id, b.row_count, c.counts),
     change as (
       select client_id, id as entity_id, 'BATCH_STATUS_COMPLETED'::text as to_status,
              jsonb_build_object('batch_id', id, 'status', 'BATCH_STATUS_COMPLETED', 'rows', row_count,
                'counts', counts) as data
         from done),
     ${outbox.sql}
     select (select (counts->>'pending')::int from counted) as pending,
            array(select id from outbox_deliveries) as deliveries`,
    [scope.clientId, id, scope.clientId, ...outbox.params],
  );
  return row && row.pending > 0 ? null : (row?.deliveries ?? []);
}

export interface BatchRowPageRow {
  row_number: number;
  outcome: CensusRowOutcome | null;
  employee_id: string | null;
  endorsement_id: string | null;
  /** Every endorsement the row made (an exit: one DELETION per policy). */
  endorsement_ids: string[];
  reason: string | null;
  plan: RowPlan;
}

/** A batch's rows in file order (D5 keyset on the row number). */
export function readCensusRowPage(
  scope: TenantScope,
  codec: CursorCodec,
  batchId: string,
  req: PageRequest,
): Promise<Page<BatchRowPageRow>> {
  return readPage<BatchRowPageRow>(
    scope,
    codec,
    {
      scope: `census-rows:${scope.clientId}:${batchId}`,
      from: 'census_batch_rows r',
      where: 'r.client_id = ? and r.batch_id = ?',
      params: [scope.clientId, batchId],
      select: `r.row_number, r.outcome, r.employee_id, r.endorsement_id, r.reason, r.plan,
               coalesce((select jsonb_agg(e.id order by e.created_at, e.id) from endorsements e
                          where ${ROW_ENDORSEMENT_SQL}), '[]') as endorsement_ids`,
      key: [{ sql: 'r.row_number', type: 'integer' }],
    },
    req,
  );
}

/**
 * Removes a batch whose workflow could not be started, rows first (one transaction); true when it
 * did. Only a batch nobody marked started (the batch row locked first, so the reconciler's mark
 * waits or wins) and no row of which was applied: a workflow that did start after all has then
 * nothing to apply.
 */
export async function discardCensusBatch(scope: TenantScope, id: string): Promise<boolean> {
  return scope.transaction(async (tx) => {
    const [unstarted] = await tx.sql<{ id: string }>(
      `select id from census_batches where client_id = ? and id = ? and workflow_started_at is null for update`,
      [tx.clientId, id],
    );
    if (!unstarted) return false;
    const [applied] = await tx.sql<{ n: number }>(
      `select count(*)::int as n from census_batch_rows
        where client_id = ? and batch_id = ? and outcome in ('APPLIED', 'FAILED')`,
      [tx.clientId, id],
    );
    if (applied && applied.n > 0) return false;
    await tx.sql('delete from census_batch_rows where client_id = ? and batch_id = ?', [tx.clientId, id]);
    await tx.sql('delete from census_batches where client_id = ? and id = ?', [tx.clientId, id]);
    return true;
  });
}

/** The id of the client's employee with this code, if any. */
export async function employeeIdByCode(scope: TenantScope, code: string): Promise<string | undefined> {
  const [row] = await scope.sql<{ id: string }>(
    'select id from employees where client_id = ? and employee_code = ?',
    [scope.clientId, code],
  );
  return row?.id;
}
