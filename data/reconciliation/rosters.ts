import {
  COMPARED_FIELDS,
  COMPARED_WHEN_GIVEN,
  DIFFERENCE_KINDS,
  NEVER_EXPLAINED,
  type ComparedField,
  type DifferenceCounts,
  type DifferenceKind,
} from '../../domain/reconciliation/roster.js';
import type {
  ReconciliationKind,
  ReconciliationStatus,
  RosterSource,
} from '../../domain/reconciliation/roster.js';
import type { StatementCounts } from '../../domain/reconciliation/cd-statement.js';
import type { RosterRow } from '../../domain/reconciliation/roster-file.js';
import { jsonbLiteral } from '../bulk-json.js';
import { activeOnSql } from '../member-cover.js';
import { isoSql, outboxSql } from '../webhooks/outbox.js';
import { readPage, type CursorCodec, type Page, type PageRequest } from '../paging.js';
import type { TenantScope } from '../scope.js';

/**
 * Roster reconciliation's statements (domain/reconciliation/roster.ts says what each difference
 * means). The roster is staged in `roster_rows` and compared with the policy's member rows by a few
 * set-based statements in one transaction, so the work is PostgreSQL's, whatever the roster's size.
 */

export interface ReconciliationRow {
  id: string;
  client_id: string;
  policy_id: string;
  kind: ReconciliationKind;
  source: RosterSource;
  file_name: string | null;
  status: ReconciliationStatus;
  error: string | null;
  /** The rows read: a roster's members, or a CD statement's postings. */
  roster_rows: number;
  counts: DifferenceCounts | StatementCounts;
  created_at: string;
  completed_at: string | null;
}

const RECONCILIATION_COLUMNS = `r.id, r.client_id, r.policy_id, r.kind, r.source, r.file_name, r.status, r.error, r.roster_rows,
  r.counts, ${isoSql('r.created_at')} as created_at,
  case when r.completed_at is null then null else ${isoSql('r.completed_at')} end as completed_at`;

export async function findReconciliationByRunKey(
  scope: TenantScope,
  policyId: string,
  runKey: string,
): Promise<ReconciliationRow | undefined> {
  const [row] = await scope.sql<ReconciliationRow>(
    `select ${RECONCILIATION_COLUMNS} from roster_reconciliations r
      where r.client_id = ? and r.policy_id = ? and r.run_key = ?`,
    [scope.clientId, policyId, runKey],
  );
  return row;
}

export async function readReconciliation(
  scope: TenantScope,
  policyId: string,
  id: string,
): Promise<ReconciliationRow | undefined> {
  const [row] = await scope.sql<ReconciliationRow>(
    `select ${RECONCILIATION_COLUMNS} from roster_reconciliations r
      where r.client_id = ? and r.policy_id = ? and r.id = ?`,
    [scope.clientId, policyId, id],
  );
  return row;
}

export interface NewReconciliation {
  id: string;
  policyId: string;
  source: RosterSource;
  fileName: string | null;
  runKey: string;
}

const STAGE_BATCH = 2000;

async function insertRows(tx: TenantScope, id: string, rows: RosterRow[]): Promise<void> {
  await tx.sql(
    `insert into roster_rows (reconciliation_id, row_number, client_id, uhid, insurer_member_id, employee_code, name,
       date_of_birth, relationship, sum_insured, coverage_start_date, coverage_end_date, active)
     select ?, r."rowNumber", ?, r.uhid, r."insurerMemberId", r."employeeCode", r.name, r."dateOfBirth",
            r.relationship, r."sumInsured", r."coverageStartDate", r."coverageEndDate", r.active
       from jsonb_to_recordset(${jsonbLiteral(rows)}) as r("rowNumber" integer, uhid text, "insurerMemberId" text,
         "employeeCode" text, name text, "dateOfBirth" date, relationship text, "sumInsured" numeric,
         "coverageStartDate" date, "coverageEndDate" date, active boolean)`,
    [id, tx.clientId],
  );
}

/**
 * Stages a roster in one transaction: the reconciliation row, then its rows in batches as they are
 * read (the reader streams the file), so a roster that turns out malformed halfway leaves nothing.
 * Idempotency: the reconciliation's (policy, run key) is unique; a second staging of the same roster
 * waits for the first's commit and then answers its row (`staged: false`), reading nothing.
 */
export async function stageRoster(
  scope: TenantScope,
  r: NewReconciliation,
  rows: AsyncIterable<RosterRow>,
): Promise<{ reconciliation: ReconciliationRow; staged: boolean }> {
  return scope.transaction(async (tx) => {
    const inserted = await tx.sql<{ id: string }>(
      `insert into roster_reconciliations (id, client_id, policy_id, source, file_name, run_key, status)
       values (?, ?, ?, ?, ?, ?, 'staged') on conflict (policy_id, run_key) do nothing returning id`,
      [r.id, tx.clientId, r.policyId, r.source, r.fileName, r.runKey],
    );
    if (inserted.length === 0) {
      return { reconciliation: (await findReconciliationByRunKey(tx, r.policyId, r.runKey))!, staged: false };
    }
    let batch: RosterRow[] = [];
    let count = 0;
    for await (const row of rows) {
      batch.push(row);
      count++;
      if (batch.length === STAGE_BATCH) {
        await insertRows(tx, r.id, batch);
        batch = [];
      }
    }
    if (batch.length > 0) await insertRows(tx, r.id, batch);
    await tx.sql('update roster_reconciliations set roster_rows = ? where client_id = ? and id = ?', [
      count,
      tx.clientId,
      r.id,
    ]);
    return { reconciliation: (await readReconciliation(tx, r.policyId, r.id))!, staged: true };
  });
}

/**
 * Records a roster refused whole (nothing staged): its error, no rows. Keyed like a staged one, so
 * the same malformed file sent again answers the same refusal.
 */
export async function recordRefusedRoster(
  scope: TenantScope,
  r: NewReconciliation,
  error: string,
): Promise<ReconciliationRow> {
  await scope.sql(
    `insert into roster_reconciliations (id, client_id, policy_id, source, file_name, run_key, status, error,
       completed_at, counts)
     values (?, ?, ?, ?, ?, ?, 'refused', ?, now(), ?::jsonb) on conflict (policy_id, run_key) do nothing`,
    [r.id, scope.clientId, r.policyId, r.source, r.fileName, r.runKey, error, JSON.stringify(zeroCounts())],
  );
  return (await findReconciliationByRunKey(scope, r.policyId, r.runKey))!;
}

export const zeroCounts = (): DifferenceCounts =>
  Object.fromEntries(DIFFERENCE_KINDS.map((k) => [k, 0])) as DifferenceCounts;

/** A name as compared: case and runs of spaces ignored. */
const nameKey = (x: string) => `lower(regexp_replace(trim(${x}), '[[:space:]]+', ' ', 'g'))`;

/** Our covered members of the policy (`?` client, policy, today): the person, their fields. */
const OURS = `ours as (
  select pm.id as member_id, pm.employee_id, e.employee_code, coalesce(d.relationship, 'SELF') as relationship,
         coalesce(d.name, e.name) as name, coalesce(d.date_of_birth, e.date_of_birth) as date_of_birth,
         pm.sum_insured, pm.coverage_start_date, pm.coverage_end_date, pm.uhid
    from policy_members pm
    join employees e on e.id = pm.employee_id and e.client_id = pm.client_id
    left join dependents d on d.id = pm.dependent_id and d.client_id = pm.client_id
   where pm.client_id = ? and pm.policy_id = ? and ${activeOnSql('pm')})`;

/** The roster's covered members (`?` client, reconciliation). */
const THEIRS = `theirs as (
  select * from roster_rows where client_id = ? and reconciliation_id = ? and active)`;

/**
 * Pairs roster rows with our members: by UHID first, then by the person (employee code and
 * relationship; a dependent also by name or date of birth, the employee alone per code). Each
 * member is paired once.
 */
const MATCH = `with ${OURS}, ${THEIRS},
  by_uhid as (
    select distinct on (t.row_number) t.row_number, o.member_id
      from theirs t join ours o on o.uhid = t.uhid
     order by t.row_number, o.member_id),
  by_person as (
    select distinct on (o.member_id) t.row_number, o.member_id
      from theirs t join ours o on o.employee_code = t.employee_code and o.relationship = t.relationship
       and (o.relationship = 'SELF' or ${nameKey('o.name')} = ${nameKey('t.name')} or o.date_of_birth = t.date_of_birth)
     where t.row_number not in (select row_number from by_uhid)
       and o.member_id not in (select member_id from by_uhid)
     order by o.member_id, (${nameKey('o.name')} = ${nameKey('t.name')}) desc, t.row_number),
  matched as (
    select row_number, member_id from by_uhid
    union all
    select distinct on (row_number) row_number, member_id from by_person order by row_number, member_id)
  update roster_rows r set member_id = m.member_id
    from matched m where r.client_id = ? and r.reconciliation_id = ? and r.row_number = m.row_number`;

/** The comparison of one field of a matched pair, as domain/reconciliation/roster.ts states the rule. */
const sameSql = (field: ComparedField, ours: string, theirs: string): string => {
  if (field === 'member_name') return `${nameKey(ours)} = ${nameKey(theirs)}`;
  if (field === 'uhid') return `${ours} is null or ${theirs} is null or ${ours} = ${theirs}`;
  const same = `${ours} = ${theirs}`;
  return COMPARED_WHEN_GIVEN.includes(field) ? `${theirs} is null or ${same}` : same;
};
const COLUMN: Record<ComparedField, string> = {
  member_name: 'name',
  date_of_birth: 'date_of_birth',
  sum_insured: 'sum_insured',
  coverage_start_date: 'coverage_start_date',
  coverage_end_date: 'coverage_end_date',
  uhid: 'uhid',
};

/** Field by field of a matched pair: (field, ours, theirs, same), one row per COMPARED_FIELDS. */
const FIELDS = `(values
  ${COMPARED_FIELDS.map((f) => {
    const [o, t] = [`o.${COLUMN[f]}`, `t.${COLUMN[f]}`];
    const text = (x: string) => (f === 'member_name' || f === 'uhid' ? x : `${x}::text`);
    return `('${f}', ${text(o)}, ${text(t)}, ${sameSql(f, o, t)})`;
  }).join(',\n  ')}
) as f(field, ours, theirs, same)`;

/** Every difference, numbered in a stable order; an open endorsement of the employee explains all but a missing UHID. */
const DIFFERENCES = `with ${OURS}, ${THEIRS},
  open_endorsement as (
    select employee_id, id from endorsements
     where client_id = ? and policy_id = ?
       and status in ('ENDORSEMENT_STATUS_PENDING', 'ENDORSEMENT_STATUS_SENT_TO_INSURER')),
  found as (
    select 'covered_there_not_here' as kind, null::text as member_id, e.id as employee_id, t.employee_code,
           t.relationship, t.row_number as roster_row, null::text as field, null::text as ours, null::text as theirs
      from theirs t left join employees e on e.client_id = ? and e.employee_code = t.employee_code
     where t.member_id is null
    union all
    select 'covered_here_not_there', o.member_id, o.employee_id, o.employee_code, o.relationship, null, null, null, null
      from ours o where not exists (select 1 from theirs t where t.member_id = o.member_id)
    union all
    select 'field_mismatch', o.member_id, o.employee_id, o.employee_code, o.relationship, t.row_number,
           f.field, f.ours, f.theirs
      from theirs t join ours o on o.member_id = t.member_id cross join lateral ${FIELDS}
     where not f.same
    union all
    select 'missing_uhid', o.member_id, o.employee_id, o.employee_code, o.relationship, t.row_number,
           'uhid', null, t.uhid
      from theirs t join ours o on o.member_id = t.member_id
     where o.uhid is null and t.uhid is not null),
  judged as (
    select f.*, oe.id as endorsement_id,
           case when oe.id is not null and f.kind <> '${NEVER_EXPLAINED}' then 'explained_by_endorsement' else f.kind end
             as final_kind
      from found f left join open_endorsement oe on oe.employee_id = f.employee_id)
  insert into roster_differences (reconciliation_id, seq, client_id, kind, explains, member_id, employee_id,
    employee_code, relationship, roster_row, field, ours, theirs, endorsement_id)
  select ?, row_number() over (order by final_kind, employee_code, relationship, member_id nulls last,
           roster_row nulls last, field nulls first),
         ?, final_kind, case when final_kind = 'explained_by_endorsement' then kind end, member_id, employee_id,
         employee_code, relationship, roster_row, field, ours, theirs,
         case when final_kind = 'explained_by_endorsement' then endorsement_id end
    from judged`;

/** Our members the roster gave a UHID we lacked: filled in, one audit entry each (a system change, no token). */
const FILL_UHIDS = `with filled as (
    update policy_members pm
       set uhid = t.uhid, insurer_member_id = coalesce(pm.insurer_member_id, t.insurer_member_id), updated_at = now()
      from roster_rows t
     where t.client_id = ? and t.reconciliation_id = ? and t.active and t.member_id = pm.id
       and pm.client_id = ? and pm.uhid is null and t.uhid is not null
    returning pm.id, pm.client_id)
  insert into audit_events (client_id, entity, entity_id, action, changed_fields)
  select client_id, 'policy_member', id, 'uhid_filled', array['uhid'] from filled`;

const COUNTS = `jsonb_build_object(${DIFFERENCE_KINDS.map(
  (k) =>
    `'${k}', (select count(*) from roster_differences d where d.client_id = r.client_id and d.reconciliation_id = r.id and d.kind = '${k}')`,
).join(', ')})`;

/**
 * Compares a staged roster with the policy's members and completes the reconciliation, in one
 * transaction: pair, record the differences, fill missing UHIDs (audited), count, announce
 * `policy.reconciliation_completed` (counts only), drop the staged rows. Idempotent: the row is
 * locked and only a `staged` one is compared, so a retried activity (or a second worker) finds it
 * completed and changes nothing: no second set of differences, no second UHID audit. Returns the
 * reconciliation and the webhook deliveries to start after the commit.
 */
export async function compareRoster(
  scope: TenantScope,
  id: string,
  today: string,
): Promise<{ reconciliation: ReconciliationRow; deliveries: string[] } | undefined> {
  return scope.transaction(async (tx) => {
    const c = tx.clientId;
    const [locked] = await tx.sql<{ policy_id: string; status: ReconciliationStatus }>(
      'select policy_id, status from roster_reconciliations where client_id = ? and id = ? for update',
      [c, id],
    );
    if (!locked) return undefined;
    const p = locked.policy_id;
    // A roster is staged moments before: its table's statistics do not know it yet, and a nested
    // loop planned on a guess of a few rows is quadratic at 50,000. Hash joins at any size.
    await tx.sql(
      "select set_config('enable_nestloop', 'off', true), set_config('statement_timeout', '300000', true)",
    );
    if (locked.status !== 'staged')
      return { reconciliation: (await readReconciliation(tx, p, id))!, deliveries: [] };
    // The statements' parameters in their order: OURS (client, policy, today), THEIRS (client,
    // reconciliation), then each statement's own.
    const ours = [c, p, today];
    const theirs = [c, id];
    await tx.sql(MATCH, [...ours, ...theirs, /* the update */ c, id]);
    await tx.sql(DIFFERENCES, [
      ...ours,
      ...theirs,
      /* open_endorsement */ c,
      p,
      /* employees of covered_there_not_here */ c,
      /* the insert */ id,
      c,
    ]);
    await tx.sql(FILL_UHIDS, [c, id, c]);
    const outbox = outboxSql('change', 'policy.reconciliation_completed');
    const [done] = await tx.sql<{ deliveries: string[] }>(
      `with done as (
         update roster_reconciliations r set status = 'completed', completed_at = now(), counts = ${COUNTS}
          where r.client_id = ? and r.id = ?
         returning r.client_id, r.id, r.policy_id, r.counts, r.roster_rows),
       change as (
         select client_id, id as entity_id, 'COMPLETED'::text as to_status,
                jsonb_build_object('reconciliation_id', id, 'policy_id', policy_id, 'kind', 'roster', 'status', 'completed',
                  'roster_rows', roster_rows, 'counts', counts) as data
           from done),
       ${outbox.sql}
       select array(select id from outbox_deliveries) as deliveries`,
      [c, id, ...outbox.params],
    );
    await tx.sql('delete from roster_rows where client_id = ? and reconciliation_id = ?', [c, id]);
    return { reconciliation: (await readReconciliation(tx, p, id))!, deliveries: done?.deliveries ?? [] };
  });
}

/** Newest first (D5 keyset on the table's sequence); `policy_found` tells an empty list from an unknown policy. */
export async function reconciliationPage(
  scope: TenantScope,
  codec: CursorCodec,
  policyId: string,
  req: PageRequest,
): Promise<{ policyFound: boolean; page: Page<ReconciliationRow> }> {
  const page = await readPage<ReconciliationRow>(
    scope,
    codec,
    {
      scope: `reconciliations:${scope.clientId}:${policyId}`,
      from: 'roster_reconciliations r',
      where: 'r.client_id = ? and r.policy_id = ?',
      params: [scope.clientId, policyId],
      select: RECONCILIATION_COLUMNS,
      key: [{ sql: 'r.seq', type: 'bigint' }],
      descending: true,
      extra: {
        columns: { policy_found: 'exists(select 1 from policies where client_id = ? and id = ?)' },
        params: [scope.clientId, policyId],
      },
    },
    req,
  );
  return { policyFound: page.extra.policy_found === true, page };
}

export interface DifferenceRow {
  seq: number;
  kind: DifferenceKind;
  explains: DifferenceKind | null;
  member_id: string | null;
  employee_id: string | null;
  employee_code: string;
  relationship: string;
  roster_row: number | null;
  field: string | null;
  ours: string | null;
  theirs: string | null;
  endorsement_id: string | null;
}

/** One reconciliation's differences in their order (D5 keyset on `seq`). */
export function differencePage(
  scope: TenantScope,
  codec: CursorCodec,
  reconciliationId: string,
  req: PageRequest,
): Promise<Page<DifferenceRow>> {
  return readPage<DifferenceRow>(
    scope,
    codec,
    {
      scope: `differences:${scope.clientId}:${reconciliationId}`,
      from: 'roster_differences d',
      where: 'd.client_id = ? and d.reconciliation_id = ?',
      params: [scope.clientId, reconciliationId],
      select: `d.seq, d.kind, d.explains, d.member_id, d.employee_id, d.employee_code, d.relationship, d.roster_row,
      d.field, d.ours, d.theirs, d.endorsement_id`,
      key: [{ sql: 'd.seq', type: 'integer' }],
    },
    req,
  );
}
