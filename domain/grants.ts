import type { EntityManager } from '@mikro-orm/postgresql';
import type { EndorsementRefused } from './endorsements.js';
import type { EndorsementStatus, GrantItemOutcome, GrantStatus } from './enums.js';
import { newId } from './ids.js';
import { maxDate, minDate } from './dates.js';

/** A grant request after its shape was checked (api/schemas/grants.ts): start_date before end_date. */
export interface GrantRequest {
  employeeId: string;
  policyId?: string | undefined;
  startDate: string;
  endDate: string;
}

/** Why D9 refuses a grant synchronously; the API maps each code to its 404. */
export type GrantRefusalCode = 'EMPLOYEE_NOT_FOUND' | 'POLICY_NOT_FOUND';

export class GrantRefused extends Error {
  constructor(
    readonly code: GrantRefusalCode,
    readonly detail = '',
  ) {
    super(`${code}${detail ? `: ${detail}` : ''}`);
  }
}

/** The stored row the workflow start needs: ids only. */
export interface CreatedGrant {
  id: string;
  clientId: string;
  employeeId: string;
}

export interface Period {
  startDate: string;
  endDate: string;
}

type Sql = <T>(query: string, params?: unknown[]) => Promise<T[]>;
export const sqlOf =
  (em: EntityManager): Sql =>
  <T>(query: string, params: unknown[] = []) =>
    em.getConnection().execute<T[]>(query, params, 'all', em.getTransactionContext());

/**
 * A policy period overlaps a grant period when the clipped period is at least one day long
 * (start strictly before end, as an endorsement requires). Placeholders: grant end, grant start.
 */
export const OVERLAPS_SQL = 'p.start_date < ?::date and p.end_date > ?::date';

/** D9: the grant's dates clipped to the policy period. */
export function clipToPolicy(grant: Period, policy: Period): Period {
  return {
    startDate: maxDate(grant.startDate, policy.startDate),
    endDate: minDate(grant.endDate, policy.endDate),
  };
}

interface CandidateRow {
  policy_id: string | null;
  start_date: string | null;
  end_date: string | null;
}

/**
 * D9's synchronous checks, then the grant row (PENDING) and its audit entry in one statement; the
 * caller starts the workflow. One read brings the employee and the client's ACTIVE candidate
 * policies: with policy_id that one policy, which must overlap the grant period; without, any
 * overlapping one. Creating is not deduplicated by content: two identical requests are two
 * grants (the Idempotency-Key is the way to retry safely), and the second one's endorsements are
 * skipped as already open or already covered.
 */
export async function createGrant(
  em: EntityManager,
  clientId: string,
  req: GrantRequest,
  actor: { tokenId: string | null },
): Promise<CreatedGrant> {
  const sql = sqlOf(em);
  const rows = await sql<CandidateRow>(
    `select p.id as policy_id, p.start_date::text as start_date, p.end_date::text as end_date
       from employees emp
       left join policies p on p.client_id = emp.client_id and p.status = 'POLICY_STATUS_ACTIVE'
                           and ${req.policyId ? 'p.id = ?' : OVERLAPS_SQL}
      where emp.client_id = ? and emp.id = ?`,
    [...(req.policyId ? [req.policyId] : [req.endDate, req.startDate]), clientId, req.employeeId],
  );
  if (rows.length === 0) throw new GrantRefused('EMPLOYEE_NOT_FOUND');
  checkPolicies(rows, req);

  const id = newId('grant');
  await sql(
    `with created as (
       insert into grants (id, client_id, employee_id, policy_id, start_date, end_date, status)
       values (?, ?, ?, ?, ?, ?, 'GRANT_STATUS_PENDING')
       returning id, client_id)
     insert into audit_events (client_id, entity, entity_id, action, changed_fields, actor_token_id)
     select client_id, 'grant', id, 'create', '{status,policy_id,start_date,end_date}'::text[], ? from created`,
    [id, clientId, req.employeeId, req.policyId ?? null, req.startDate, req.endDate, actor.tokenId],
  );
  return { id, clientId, employeeId: req.employeeId };
}

function checkPolicies(rows: CandidateRow[], req: GrantRequest): void {
  const found = rows.filter((r) => r.policy_id !== null);
  if (!req.policyId) {
    if (found.length === 0) {
      throw new GrantRefused(
        'POLICY_NOT_FOUND',
        `no active policy overlaps the period ${req.startDate} to ${req.endDate}`,
      );
    }
    return;
  }
  const policy = found[0];
  if (!policy) throw new GrantRefused('POLICY_NOT_FOUND');
  if (!(policy.start_date! < req.endDate && policy.end_date! > req.startDate)) {
    throw new GrantRefused(
      'POLICY_NOT_FOUND',
      `the policy period ${policy.start_date} to ${policy.end_date} does not overlap the period ${req.startDate} to ${req.endDate}`,
    );
  }
}

/**
 * How an endorsement the grant could not create is recorded: an employee already on the policy, or
 * an endorsement already open for them on it, is SKIPPED (nothing to do here); anything else FAILED.
 */
export function refusalOutcome(err: EndorsementRefused): { outcome: GrantItemOutcome; detail: string } {
  switch (err.code) {
    case 'ALREADY_COVERED':
    case 'IN_PROGRESS':
      return { outcome: 'SKIPPED', detail: err.detail };
    case 'POLICY_NOT_FOUND':
      return { outcome: 'FAILED', detail: 'the policy is no longer active' };
    case 'EMPLOYEE_NOT_FOUND':
      return { outcome: 'FAILED', detail: 'the employee no longer exists' };
    default:
      return { outcome: 'FAILED', detail: err.detail || err.code };
  }
}

export interface SettledItem {
  outcome: GrantItemOutcome;
  /** The endorsement's status for an ENDORSEMENT item. */
  endorsementStatus: EndorsementStatus | null;
}

/**
 * The grant's final status once every endorsement is decided. Skipped policies are neutral (the
 * employee is covered, or being covered, by another request). COMPLETED: nothing failed, was
 * rejected or cancelled; PARTIALLY_COMPLETED: something did, and at least one was approved;
 * FAILED: nothing approved and not everything skipped, or no target policy at all.
 */
export function grantOutcome(items: readonly SettledItem[]): GrantStatus {
  if (items.length === 0) return 'GRANT_STATUS_FAILED';
  const approved = items.filter((i) => i.endorsementStatus === 'ENDORSEMENT_STATUS_APPROVED').length;
  const unsuccessful = items.filter(
    (i) =>
      i.outcome === 'FAILED' ||
      (i.outcome === 'ENDORSEMENT' && i.endorsementStatus !== 'ENDORSEMENT_STATUS_APPROVED'),
  ).length;
  if (unsuccessful === 0) return 'GRANT_STATUS_COMPLETED';
  return approved > 0 ? 'GRANT_STATUS_PARTIALLY_COMPLETED' : 'GRANT_STATUS_FAILED';
}

export const FINAL_GRANT_STATUSES: readonly GrantStatus[] = [
  'GRANT_STATUS_COMPLETED',
  'GRANT_STATUS_PARTIALLY_COMPLETED',
  'GRANT_STATUS_FAILED',
];
