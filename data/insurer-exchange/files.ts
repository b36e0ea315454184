import type { FileEndorsement, FilePerson } from '../../domain/insurer-exchange/file.js';
import type { SystemScope } from '../scope.js';

/** An endorsement as its insurer's file needs it, with where it belongs (client, policy, insurer). */
export interface FileEndorsementRow extends FileEndorsement {
  clientId: string;
  policyId: string;
  insurerCode: string;
}

/** A row a cut-off claimed: the endorsement itself, or its withdrawal (cancelled after delivery). */
export interface ClaimedFileRow extends FileEndorsementRow {
  withdrawal: boolean;
}

type Row = Omit<FileEndorsementRow, 'employee'> & {
  employeeName: string;
  employeeGender: FileEndorsement['employee']['gender'];
  employeeDateOfBirth: string;
  dependents: FilePerson[];
};

/**
 * Personal details (names, genders, dates of birth) are read here, at the moment a file is written,
 * and go nowhere but into the file: callers pass only ids and counts on. Dependents are all of the
 * employee's, in the order they were added (a dependent's own endorsement: that one only); the
 * coverage type decides who is listed (domain rule).
 */
const select = (
  extra = '',
) => `select ${extra}e.id as "endorsementId", e.client_id as "clientId", e.policy_id as "policyId",
       p.policy_number as "policyNumber", p.coverage_type as "coverageType", i.code as "insurerCode",
       e.type, emp.employee_code as "employeeCode", emp.name as "employeeName",
       emp.gender as "employeeGender", emp.date_of_birth::text as "employeeDateOfBirth",
       coalesce((select json_agg(json_build_object('name', d.name, 'relationship', d.relationship,
                  'gender', d.gender, 'dateOfBirth', d.date_of_birth::text) order by d.created_at, d.id)
                   from dependents d where d.client_id = e.client_id and d.employee_id = e.employee_id
                    and (e.dependent_id is null or d.id = e.dependent_id)),
                '[]'::json) as dependents, e.dependent_id is not null as "dependentOnly",
       e.coverage_start_date::text as "coverageStartDate", e.coverage_end_date::text as "coverageEndDate",
       e.sum_insured::text as "sumInsured"
  from endorsements e
  join policies p on p.id = e.policy_id and p.client_id = e.client_id
  join insurers i on i.id = p.insurer_id
  join employees emp on emp.id = e.employee_id and emp.client_id = e.client_id`;

const ORDER = 'order by e.client_id, p.policy_number, e.cut_off_queued_at, e.id';

const toFileRow = ({ employeeName, employeeGender, employeeDateOfBirth, ...r }: Row): FileEndorsementRow => ({
  ...r,
  employee: { name: employeeName, gender: employeeGender, dateOfBirth: employeeDateOfBirth },
});

/**
 * Claims a file insurer's endorsements for one cut-off (D14), across the clients that use that
 * insurer code: PENDING, queued by their workflow after review (`cut_off_queued_at`, the review
 * mark: `workflow_started_at` is written before the review decides, and by the API's start, so it
 * does not mean reviewed), queued at or before the cut-off, and not claimed by another cut-off.
 * Concurrency: one statement; a row claimed by a concurrent cut-off (a `flush` beside the Schedule)
 * is skipped, so an endorsement belongs to exactly one cut-off and so to exactly one file name.
 * Idempotent: a retry claims only what joined since (nothing, normally). Returns the count claimed.
 */
export async function claimCutOff(
  system: SystemScope,
  q: { insurerCode: string; cutOff: Date },
): Promise<number> {
  const rows = await system.sql<{ id: string }>(
    `update endorsements e set cut_off_at = ?
       from policies p join insurers i on i.id = p.insurer_id
      where p.id = e.policy_id and p.client_id = e.client_id and i.code = ?
        and e.status = 'ENDORSEMENT_STATUS_PENDING' and e.cut_off_at is null
        and e.cut_off_queued_at is not null and e.cut_off_queued_at <= ?
      returning e.id`,
    [q.cutOff, q.insurerCode, q.cutOff],
  );
  return rows.length;
}

/**
 * D7 + D14: claims for one cut-off the withdrawals queued up to it (endorsements cancelled after an
 * earlier cut-off delivered them), across clients, like claimCutOff: one statement, a withdrawal
 * claimed by a concurrent cut-off is skipped, so it is in exactly one file. Returns the count.
 */
export async function claimWithdrawals(
  system: SystemScope,
  q: { insurerCode: string; cutOff: Date },
): Promise<number> {
  const rows = await system.sql<{ id: string }>(
    `update endorsements e set withdrawal_cut_off_at = ?
       from policies p join insurers i on i.id = p.insurer_id
      where p.id = e.policy_id and p.client_id = e.client_id and i.code = ?
        and e.withdrawal_queued_at is not null and e.withdrawal_cut_off_at is null
        and e.withdrawal_queued_at <= ?
      returning e.id`,
    [q.cutOff, q.insurerCode, q.cutOff],
  );
  return rows.length;
}

/**
 * What one cut-off's files carry: the endorsements it claimed, less those cancelled meanwhile, and
 * the withdrawals it claimed. A retried cut-off reads the same set (the claims are durable), so it
 * rewrites the same files; an endorsement cancelled before its file was (re)written drops out of it.
 */
export async function listClaimedByCutOff(
  system: SystemScope,
  q: { insurerCode: string; cutOff: Date },
): Promise<ClaimedFileRow[]> {
  const rows = await system.sql<Row & { withdrawal: boolean }>(
    `${select('e.withdrawal_cut_off_at is not distinct from ?::timestamptz as withdrawal, ')}
      where i.code = ? and ((e.cut_off_at = ? and e.status <> 'ENDORSEMENT_STATUS_CANCELLED')
                            or e.withdrawal_cut_off_at = ?)
      ${ORDER}`,
    [q.cutOff, q.insurerCode, q.cutOff, q.cutOff],
  );
  return rows.map((r) => ({ ...toFileRow(r), withdrawal: r.withdrawal }));
}

/** The same details for endorsements named by id (a batch that carries ids only), any status. */
export async function readFileEndorsementsAcrossClients(
  system: SystemScope,
  ids: readonly string[],
): Promise<FileEndorsementRow[]> {
  if (ids.length === 0) return [];
  const marks = ids.map(() => '?').join(', ');
  const rows = await system.sql<Row>(`${select()} where e.id in (${marks}) ${ORDER}`, ids);
  return rows.map(toFileRow);
}
