import type { FileEndorsement, FilePerson } from '../domain/insurer-file.js';
import type { SystemScope } from './scope.js';

/** An endorsement as its insurer's file needs it, with where it belongs (client, policy, insurer). */
export interface FileEndorsementRow extends FileEndorsement {
  clientId: string;
  policyId: string;
  insurerCode: string;
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
 * employee's, in the order they were added; the coverage type decides who is listed (domain rule).
 */
const SELECT = `select e.id as "endorsementId", e.client_id as "clientId", e.policy_id as "policyId",
       p.policy_number as "policyNumber", p.coverage_type as "coverageType", i.code as "insurerCode",
       e.type, emp.employee_code as "employeeCode", emp.name as "employeeName",
       emp.gender as "employeeGender", emp.date_of_birth::text as "employeeDateOfBirth",
       coalesce((select json_agg(json_build_object('name', d.name, 'relationship', d.relationship,
                  'gender', d.gender, 'dateOfBirth', d.date_of_birth::text) order by d.created_at, d.id)
                   from dependents d where d.client_id = e.client_id and d.employee_id = e.employee_id),
                '[]'::json) as dependents,
       e.coverage_start_date::text as "coverageStartDate", e.coverage_end_date::text as "coverageEndDate",
       e.sum_insured::text as "sumInsured"
  from endorsements e
  join policies p on p.id = e.policy_id and p.client_id = e.client_id
  join insurers i on i.id = p.insurer_id and i.client_id = e.client_id
  join employees emp on emp.id = e.employee_id and emp.client_id = e.client_id`;

const ORDER = 'order by e.client_id, p.policy_number, e.workflow_started_at, e.id';

const toFileRow = ({ employeeName, employeeGender, employeeDateOfBirth, ...r }: Row): FileEndorsementRow => ({
  ...r,
  employee: { name: employeeName, gender: employeeGender, dateOfBirth: employeeDateOfBirth },
});

/**
 * A file insurer's endorsements waiting for its cut-off, across the clients that use that insurer
 * code: PENDING with the review mark written (the workflow reviewed it; D14 moves it to
 * SENT_TO_INSURER only once its file is delivered), reviewed at or before `reviewedBefore`. The
 * bound makes a retried cut-off list the same endorsements, less those that moved on meanwhile.
 */
export async function listEndorsementsAwaitingCutOff(
  system: SystemScope,
  q: { insurerCode: string; reviewedBefore: Date },
): Promise<FileEndorsementRow[]> {
  const rows = await system.sql<Row>(
    `${SELECT}
      where i.code = ? and e.status = 'ENDORSEMENT_STATUS_PENDING'
        and e.workflow_started_at is not null and e.workflow_started_at <= ?
      ${ORDER}`,
    [q.insurerCode, q.reviewedBefore],
  );
  return rows.map(toFileRow);
}

/** The same details for endorsements named by id (a batch that carries ids only), any status. */
export async function readFileEndorsementsAcrossClients(
  system: SystemScope,
  ids: readonly string[],
): Promise<FileEndorsementRow[]> {
  if (ids.length === 0) return [];
  const marks = ids.map(() => '?').join(', ');
  const rows = await system.sql<Row>(`${SELECT} where e.id in (${marks}) ${ORDER}`, ids);
  return rows.map(toFileRow);
}
