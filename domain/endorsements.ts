import type { EntityManager } from '@mikro-orm/postgresql';
import type { Slab } from './premium.js';
import type { CoverageType, EndorsementType, PolicyStatus, Relationship } from './enums.js';
import { newId } from './ids.js';
import {
  additionPremium,
  deletionRefund,
  findSlab,
  modificationPremium,
  normaliseAmount,
} from './premium.js';
import { routeEndorsement, type RoutablePolicy } from './routing.js';

/** A create request after its shape was checked (api/schemas/endorsements.ts). */
export interface EndorsementRequest {
  employeeId: string;
  policyId?: string | undefined;
  type: EndorsementType;
  coverageStartDate: string;
  coverageEndDate: string;
  /** Exact decimal; ADDITION (optional, default slab) and MODIFICATION (required) only. */
  sumInsured?: string | undefined;
}

/** Why D7 refuses an endorsement synchronously; the API maps each code to its HTTP answer. */
export type RefusalCode =
  'EMPLOYEE_NOT_FOUND' | 'POLICY_NOT_FOUND' | 'INVALID' | 'IN_PROGRESS' | 'ALREADY_COVERED' | 'NOT_COVERED';

export class EndorsementRefused extends Error {
  constructor(
    readonly code: RefusalCode,
    readonly detail = '',
  ) {
    super(`${code}${detail ? `: ${detail}` : ''}`);
  }
}

/** The stored row the workflow start needs: ids only. */
export interface CreatedEndorsement {
  id: string;
  clientId: string;
  policyId: string;
  employeeId: string;
  type: EndorsementType;
}

/** Relationships a policy's coverage_type covers besides the employee (P: parents only). */
export function coveredRelationships(coverageType: CoverageType): Relationship[] {
  switch (coverageType) {
    case 'COVERAGE_TYPE_E':
      return [];
    case 'COVERAGE_TYPE_ES':
      return ['SPOUSE'];
    case 'COVERAGE_TYPE_ESC':
      return ['SPOUSE', 'CHILD'];
    case 'COVERAGE_TYPE_ESCP':
      return ['SPOUSE', 'CHILD', 'PARENT', 'PARENT_IN_LAW'];
    case 'COVERAGE_TYPE_P':
      return ['PARENT', 'PARENT_IN_LAW'];
  }
}

export const OPEN_STATUS_SQL = `('ENDORSEMENT_STATUS_PENDING', 'ENDORSEMENT_STATUS_SENT_TO_INSURER')`;

type Sql = <T>(query: string, params?: unknown[]) => Promise<T[]>;
const sqlOf =
  (em: EntityManager): Sql =>
  <T>(query: string, params: unknown[] = []) =>
    em.getConnection().execute<T[]>(query, params, 'all', em.getTransactionContext());

interface PolicyRow {
  id: string;
  policy_number: string;
  status: PolicyStatus;
  start_date: string;
  end_date: string;
  slabs: Slab[];
  default_sum_insured: string;
  employee_active: boolean;
  open_endorsement_id: string | null;
  member_sum_insured: string | null;
  member_start: string | null;
  member_end: string | null;
}

interface MemberRow {
  sum_insured: string | null;
  coverage_start_date: string;
  coverage_end_date: string;
}

/**
 * Checks everything D7 lists before an endorsement is accepted, in its order, then stores it as
 * PENDING (its workflow is started by the caller). One read and one write: the read brings the
 * employee, the candidate policies, the employee's cover and any open endorsement on each. The
 * partial unique index endorsements_one_open is the arbiter of "one open endorsement per employee
 * and policy": a losing concurrent insert does nothing and is answered 409 with the winner's id.
 */
export async function createEndorsement(
  em: EntityManager,
  clientId: string,
  req: EndorsementRequest,
  actor: { tokenId: string | null },
): Promise<CreatedEndorsement> {
  const rows = await readCandidates(sqlOf(em), clientId, req);
  if (rows.length === 0) throw new EndorsementRefused('EMPLOYEE_NOT_FOUND');
  const policy = choosePolicy(
    rows.filter((r) => r.id !== null),
    req,
  );
  if (req.coverageStartDate >= req.coverageEndDate) {
    throw new EndorsementRefused('INVALID', 'coverage_end_date: must be after coverage_start_date');
  }
  if (req.coverageStartDate < policy.start_date || req.coverageEndDate > policy.end_date) {
    throw new EndorsementRefused(
      'INVALID',
      `coverage_start_date: the coverage period must lie within the policy period ${policy.start_date} to ${policy.end_date}`,
    );
  }
  const requestedSlab = req.sumInsured === undefined ? undefined : findSlab(policy.slabs, req.sumInsured);
  if (req.sumInsured !== undefined && req.type !== 'ENDORSEMENT_TYPE_DELETION' && !requestedSlab) {
    throw new EndorsementRefused(
      'INVALID',
      `sum_insured: must be one of the policy's slabs: ${slabList(policy.slabs)}`,
    );
  }
  if (policy.open_endorsement_id) throw inProgress(policy.open_endorsement_id);
  const priced = price(req, policy, memberOf(policy), requestedSlab);
  return insertEndorsement(em, clientId, req, policy.id, priced, actor);
}

/** No row: no such employee. A row with a null policy: the employee, but no candidate policy. */
async function readCandidates(sql: Sql, clientId: string, req: EndorsementRequest): Promise<PolicyRow[]> {
  return sql<PolicyRow>(
    `select p.id, p.policy_number, p.status, p.start_date::text as start_date, p.end_date::text as end_date,
            p.slabs, p.default_sum_insured::text as default_sum_insured,
            m.policy_id is not null as employee_active,
            m.sum_insured::text as member_sum_insured,
            m.coverage_start_date::text as member_start, m.coverage_end_date::text as member_end,
            (select o.id from endorsements o
              where o.client_id = emp.client_id and o.employee_id = emp.id and o.policy_id = p.id
                and o.status in ${OPEN_STATUS_SQL}) as open_endorsement_id
       from employees emp
       left join policies p on p.client_id = emp.client_id and p.status = 'POLICY_STATUS_ACTIVE'
                           ${req.policyId ? 'and p.id = ?' : ''}
       left join policy_members m on m.policy_id = p.id and m.employee_id = emp.id
                                 and m.dependent_id is null and m.status = 'active'
      where emp.client_id = ? and emp.id = ?`,
    req.policyId ? [req.policyId, clientId, req.employeeId] : [clientId, req.employeeId],
  );
}

function choosePolicy(rows: PolicyRow[], req: EndorsementRequest): PolicyRow {
  if (req.policyId) {
    if (!rows[0]) throw new EndorsementRefused('POLICY_NOT_FOUND');
    return rows[0];
  }
  const routed = routeEndorsement(req.type, req.coverageStartDate, rows.map(toRoutable));
  if (routed.ok) return rows.find((r) => r.id === routed.policyId)!;
  if (routed.reason === 'SEVERAL_POLICIES') {
    throw new EndorsementRefused(
      'INVALID',
      'policy_id: is required because the employee is covered by several active policies',
    );
  }
  throw new EndorsementRefused('POLICY_NOT_FOUND');
}

const toRoutable = (r: PolicyRow): RoutablePolicy => ({
  id: r.id,
  policyNumber: r.policy_number,
  status: r.status,
  startDate: r.start_date,
  endDate: r.end_date,
  employeeActive: r.employee_active,
});

const memberOf = (r: PolicyRow): MemberRow | undefined =>
  r.employee_active
    ? {
        sum_insured: r.member_sum_insured,
        coverage_start_date: r.member_start!,
        coverage_end_date: r.member_end!,
      }
    : undefined;

const slabList = (slabs: readonly Slab[]): string =>
  slabs.map((s) => normaliseAmount(s.sum_insured)).join(', ');

const inProgress = (openId: string | undefined) =>
  new EndorsementRefused(
    'IN_PROGRESS',
    openId ? `endorsement ${openId} is still open for this employee and policy` : '',
  );

interface Priced {
  sumInsured: string;
  premiumImpact: string;
}

/** The type-specific rules (covered or not, dates against the cover) and the premium (D7). */
function price(
  req: EndorsementRequest,
  policy: PolicyRow,
  member: MemberRow | undefined,
  slab?: Slab,
): Priced {
  const defaultSlab = findSlab(policy.slabs, policy.default_sum_insured);
  if (req.type === 'ENDORSEMENT_TYPE_ADDITION') {
    if (member)
      throw new EndorsementRefused('ALREADY_COVERED', 'the employee is already active on this policy');
    const chosen = slab ?? defaultSlab;
    if (!chosen)
      throw new EndorsementRefused(
        'INVALID',
        `sum_insured: must be one of the policy's slabs: ${slabList(policy.slabs)}`,
      );
    return {
      sumInsured: normaliseAmount(chosen.sum_insured),
      premiumImpact: additionPremium(
        { startDate: policy.start_date, endDate: policy.end_date },
        chosen.annual_premium,
        req.coverageStartDate,
        req.coverageEndDate,
      ),
    };
  }
  if (!member) throw new EndorsementRefused('NOT_COVERED', 'the employee is not active on this policy');
  const period = { startDate: policy.start_date, endDate: policy.end_date };
  const current =
    (member.sum_insured ? findSlab(policy.slabs, member.sum_insured) : undefined) ?? defaultSlab;
  if (!current)
    throw new EndorsementRefused('INVALID', 'sum_insured: the member has no premium slab on this policy');
  if (req.type === 'ENDORSEMENT_TYPE_DELETION') {
    if (req.coverageEndDate < member.coverage_start_date || req.coverageEndDate > member.coverage_end_date) {
      throw new EndorsementRefused(
        'INVALID',
        `coverage_end_date: must lie within the member's coverage ${member.coverage_start_date} to ${member.coverage_end_date}`,
      );
    }
    return {
      sumInsured: normaliseAmount(member.sum_insured ?? current.sum_insured),
      premiumImpact: deletionRefund(
        period,
        current.annual_premium,
        req.coverageEndDate,
        member.coverage_end_date,
      ),
    };
  }
  if (!slab) throw new EndorsementRefused('INVALID', 'sum_insured: is required for a MODIFICATION');
  if (req.coverageStartDate < member.coverage_start_date || req.coverageEndDate > member.coverage_end_date) {
    throw new EndorsementRefused(
      'INVALID',
      `coverage_start_date: the period must lie within the member's coverage ${member.coverage_start_date} to ${member.coverage_end_date}`,
    );
  }
  if (normaliseAmount(slab.sum_insured) === normaliseAmount(member.sum_insured ?? current.sum_insured)) {
    throw new EndorsementRefused('INVALID', "sum_insured: must differ from the member's current sum insured");
  }
  return {
    sumInsured: normaliseAmount(slab.sum_insured),
    premiumImpact: modificationPremium(
      period,
      current.annual_premium,
      slab.annual_premium,
      req.coverageStartDate,
      req.coverageEndDate,
    ),
  };
}

/** Field names only, never values (the audit trail holds no personal data). */
const CREATE_AUDIT_FIELDS =
  "'{type,status,coverage_start_date,coverage_end_date,sum_insured,premium_impact}'::text[]";

/** The row and its audit entry in one statement (atomic without a transaction's extra round trips). */
async function insertEndorsement(
  em: EntityManager,
  clientId: string,
  req: EndorsementRequest,
  policyId: string,
  priced: Priced,
  actor: { tokenId: string | null },
): Promise<CreatedEndorsement> {
  const id = newId('endorsement');
  const sql = sqlOf(em);
  const inserted = await sql<{ id: string }>(
    `with created as (
       insert into endorsements (id, client_id, policy_id, employee_id, type, status, coverage_start_date,
         coverage_end_date, premium_impact, sum_insured)
       values (?, ?, ?, ?, ?, 'ENDORSEMENT_STATUS_PENDING', ?, ?, ?, ?)
       on conflict (client_id, employee_id, policy_id) where status in ${OPEN_STATUS_SQL} do nothing
       returning id, client_id),
     audited as (
       insert into audit_events (client_id, entity, entity_id, action, changed_fields, actor_token_id)
       select client_id, 'endorsement', id, 'create', ${CREATE_AUDIT_FIELDS}, ? from created)
     select id from created`,
    [
      id,
      clientId,
      policyId,
      req.employeeId,
      req.type,
      req.coverageStartDate,
      req.coverageEndDate,
      priced.premiumImpact,
      priced.sumInsured,
      actor.tokenId,
    ],
  );
  if (!inserted[0]) {
    const [open] = await sql<{ id: string }>(
      `select id from endorsements where client_id = ? and employee_id = ? and policy_id = ? and status in ${OPEN_STATUS_SQL}`,
      [clientId, req.employeeId, policyId],
    );
    throw inProgress(open?.id);
  }
  return { id, clientId, policyId, employeeId: req.employeeId, type: req.type };
}
