import type { FilePerson } from '../../domain/insurer-exchange/file.js';
import type { CoverageType, EndorsementStatus, EndorsementType, Gender } from '../../domain/enums.js';
import type { InsurerScope } from './scope.js';
import { isoSql } from '../webhooks/outbox.js';
import { readPage, type CursorCodec, type KeysetQuery, type Page, type PageRequest } from '../paging.js';
import { KEPT_SENT_COUNT_SQL } from '../policy-tallies.js';

/**
 * One endorsement waiting for its insurer, with what the insurer's endorsement file carries (D14):
 * the policy, the employee's code, the people to enrol (names, genders, dates of birth), the cover
 * dates and the sum insured. Nothing else about the people: no email, phone or address.
 */
export interface BacklogRow {
  endorsementId: string;
  type: EndorsementType;
  status: EndorsementStatus;
  policyId: string;
  policyNumber: string;
  coverageType: CoverageType;
  employeeCode: string;
  employee: { name: string; gender: Gender; dateOfBirth: string };
  /** All of the employee's dependents (a dependent's own endorsement: that one); the coverage type decides who is listed. */
  dependents: FilePerson[];
  dependentOnly: boolean;
  coverageStartDate: string;
  coverageEndDate: string;
  sumInsured: string;
  sentToInsurerAt: string;
  slaDueAt: string;
}

/** The columns; `slaDefaultMs` is the configured default (a number, written into the statement). */
const columns = (
  slaDefaultMs: number,
) => `e.id as "endorsementId", e.type, e.status, e.policy_id as "policyId",
  p.policy_number as "policyNumber", p.coverage_type as "coverageType", emp.employee_code as "employeeCode",
  json_build_object('name', emp.name, 'gender', emp.gender, 'dateOfBirth', emp.date_of_birth::text) as employee,
  coalesce((select json_agg(json_build_object('name', d.name, 'relationship', d.relationship,
             'gender', d.gender, 'dateOfBirth', d.date_of_birth::text) order by d.created_at, d.id)
              from dependents d where d.client_id = e.client_id and d.employee_id = e.employee_id
               and (e.dependent_id is null or d.id = e.dependent_id)), '[]'::json) as dependents,
  e.dependent_id is not null as "dependentOnly",
  e.coverage_start_date::text as "coverageStartDate", e.coverage_end_date::text as "coverageEndDate",
  e.sum_insured::text as "sumInsured", ${isoSql('e.sent_to_insurer_at')} as "sentToInsurerAt",
  ${isoSql(
    `(e.sent_to_insurer_at + coalesce((i.adapter_settings->>'sla_days')::int * interval '1 day',
       ${Math.trunc(slaDefaultMs)} * interval '1 millisecond'))`,
  )} as "slaDueAt"`;

/** The tables the filters need, and the joins that present a row (for the page's rows alone). */
const FROM = 'endorsements e join policies p on p.id = e.policy_id';
const PRESENT = `join employees emp on emp.id = e.employee_id and emp.client_id = e.client_id
  join insurers i on i.id = p.insurer_id`;

/**
 * D14: one page of what waits for the scope's insurer, across every client whose policies name it,
 * oldest first (when each went SENT_TO_INSURER, then id). Keyset (D5) on the partial index
 * `endorsements_insurer_backlog`: a page starts at its cursor, however deep. The SLA due date is
 * the insurer's `sla_days` after sending, else the service default (`slaDefaultMs`).
 */
export function readInsurerBacklog(
  scope: InsurerScope,
  codec: CursorCodec,
  q: { status: 'ENDORSEMENT_STATUS_SENT_TO_INSURER'; slaDefaultMs: number },
  req: PageRequest,
): Promise<Page<BacklogRow>> {
  const query: KeysetQuery = {
    scope: `insurer-backlog:${scope.insurerId}:${q.status}`,
    from: FROM,
    where: 'p.insurer_id = ? and e.status = ?',
    params: [scope.insurerId, q.status],
    select: columns(q.slaDefaultMs),
    join: PRESENT,
    key: [
      { sql: 'e.sent_to_insurer_at', type: 'timestamptz' },
      { sql: 'e.id', type: 'text' },
    ],
    // The total from the counts kept on the insurer's policies, not a read of every waiting row.
    count: { sql: KEPT_SENT_COUNT_SQL, params: [scope.insurerId] },
  };
  return readPage<BacklogRow>(scope, codec, query, req);
}

/**
 * D14: one endorsement routed to the scope's insurer, whatever its status (the insurer may look up
 * one it decided). Undefined for another insurer's endorsement and for an unknown id alike.
 */
export async function readInsurerEndorsement(
  scope: InsurerScope,
  endorsementId: string,
  slaDefaultMs: number,
): Promise<
  | (Omit<BacklogRow, 'sentToInsurerAt' | 'slaDueAt'> & {
      sentToInsurerAt: string | null;
      slaDueAt: string | null;
    })
  | undefined
> {
  const [row] = await scope.sql<BacklogRow>(
    `select ${columns(slaDefaultMs)} from ${FROM} ${PRESENT} where e.id = ? and p.insurer_id = ?`,
    [endorsementId, scope.insurerId],
  );
  return row;
}
