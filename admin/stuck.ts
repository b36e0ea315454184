import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Config } from '../config/index.js';
import type { EndorsementStatus, EndorsementType } from '../domain/enums.js';
import { OPEN_ENDORSEMENT_STATUSES } from '../domain/enums.js';
import { ENDORSEMENT_WORKFLOW, endorsementWorkflowId } from '../workflows/endorsement/contract.js';
import { EndorsementStuck } from '../workflows/search-attributes.js';
import { SystemScope } from '../data/scope.js';
import {
  listOpenEndorsementsAcrossClients,
  readEndorsementAcrossClients,
  readEndorsementsAcrossClients,
  type OperatorEndorsement,
} from '../data/endorsements/stuck.js';
import { OperatorRefusal } from '../domain/operator-refusal.js';
import { TenantScope } from '../data/scope.js';
import { cancelThroughWorkflow } from '../usecases/endorsements/endorsements.js';
import { readOverdueExits } from '../data/endorsements/exits.js';
import { businessDate } from '../domain/clock.js';
import { daysBetween } from '../domain/dates.js';

/** One open endorsement an operator should look at: Temporal's view joined with PostgreSQL's. */
export interface StuckEndorsement {
  endorsement_id: string;
  workflow_id: string;
  client_id: string;
  employee_id: string;
  policy_id: string;
  policy_number: string;
  type: EndorsementType;
  /** The status in PostgreSQL, the source of truth (D7). */
  status: EndorsementStatus;
  created_at: string;
  age_seconds: number;
  /** EndorsementStuck: no insurer decision within ENDORSEMENT_STUCK_AFTER. */
  stuck: boolean;
  /** RUNNING, or NOT_RUNNING for an open row whose workflow visibility does not list as running. */
  workflow: 'RUNNING' | 'NOT_RUNNING';
  /** The workflow's page in the Temporal Web UI (TEMPORAL_UI_URL): its summary and current details. */
  web_ui: string;
}

export interface StuckQuery {
  /** Also list open endorsements whose workflow started before now minus this. */
  olderThanMs?: number;
  clientId?: string;
  policyId?: string;
  now: Date;
  /** Visibility rows read at most (the list is for people, not for bulk jobs). */
  limit?: number;
  /** The Web UI page of a workflow id (config's workflowUiUrl). */
  webUi: (workflowId: string) => string;
}

const quote = (value: string) => `'${value.replace(/'/g, "\\'")}'`;

/** The visibility query; the operators' guide shows the same ones for the Web UI. */
export function stuckVisibilityQuery(q: StuckQuery): string {
  const open = OPEN_ENDORSEMENT_STATUSES.map(quote).join(', ');
  const conditions = [`${EndorsementStuck.name} = true`];
  if (q.olderThanMs !== undefined) {
    const before = new Date(q.now.getTime() - q.olderThanMs).toISOString();
    conditions.push(`(EndorsementStatus IN (${open}) AND StartTime < ${quote(before)})`);
  }
  const filters = [
    `WorkflowType = ${quote(ENDORSEMENT_WORKFLOW)}`,
    `ExecutionStatus = 'Running'`,
    ...(q.clientId ? [`ClientId = ${quote(q.clientId)}`] : []),
    ...(q.policyId ? [`PolicyId = ${quote(q.policyId)}`] : []),
    `(${conditions.join(' OR ')})`,
  ];
  return filters.join(' AND ');
}

type Row = OperatorEndorsement;

/**
 * Stuck and old open endorsements: the running workflows visibility lists (EndorsementStuck, or
 * open and started before the threshold) joined with their rows, plus open rows past the threshold
 * that have no running workflow (the reconciler should have started one: worth a look). Oldest first.
 */
export async function findStuckEndorsements(
  temporal: Client,
  em: EntityManager,
  q: StuckQuery,
): Promise<StuckEndorsement[]> {
  const limit = q.limit ?? 1000;
  const stuck = new Map<string, boolean>();
  for await (const wf of temporal.workflow.list({ query: stuckVisibilityQuery(q) })) {
    stuck.set(
      wf.workflowId.replace(/^endorsement-/, ''),
      wf.typedSearchAttributes.get(EndorsementStuck) === true,
    );
    if (stuck.size >= limit) break;
  }
  // Operators look across clients: system reads.
  const system = SystemScope.of(em);
  const listed = await readEndorsementsAcrossClients(system, [...stuck.keys()]);
  const orphans =
    q.olderThanMs === undefined ? [] : await openRowsWithoutWorkflow(temporal, system, q, stuck);
  return [...listed, ...orphans]
    .map((row) => present(row, q, stuck.get(row.id)))
    .sort((a, b) => b.age_seconds - a.age_seconds);
}

/** Open rows older than the threshold whose workflow visibility does not list as running. */
async function openRowsWithoutWorkflow(
  temporal: Client,
  system: SystemScope,
  q: StuckQuery,
  listed: Map<string, boolean>,
): Promise<Row[]> {
  const rows = await listOpenEndorsementsAcrossClients(system, {
    before: new Date(q.now.getTime() - q.olderThanMs!),
    clientId: q.clientId,
    policyId: q.policyId,
    limit: q.limit ?? 1000,
  });
  const unlisted = rows.filter((row) => !listed.has(row.id));
  const running = await Promise.all(unlisted.map((row) => isRunning(temporal, row.id)));
  return unlisted.filter((_, i) => !running[i]);
}

async function isRunning(temporal: Client, endorsementId: string): Promise<boolean> {
  try {
    const info = await temporal.workflow.getHandle(endorsementWorkflowId(endorsementId)).describe();
    return info.status.name === 'RUNNING';
  } catch {
    return false;
  }
}

function present(row: Row, q: StuckQuery, stuck: boolean | undefined): StuckEndorsement {
  const now = q.now;
  const workflowId = endorsementWorkflowId(row.id);
  return {
    endorsement_id: row.id,
    workflow_id: workflowId,
    client_id: row.client_id,
    employee_id: row.employee_id,
    policy_id: row.policy_id,
    policy_number: row.policy_number,
    type: row.type,
    status: row.status,
    created_at: new Date(row.created_at).toISOString(),
    age_seconds: Math.max(0, Math.round((now.getTime() - new Date(row.created_at).getTime()) / 1000)),
    stuck: stuck ?? false,
    workflow: stuck === undefined ? 'NOT_RUNNING' : 'RUNNING',
    web_ui: q.webUi(workflowId),
  };
}

/** `3d 4h`, `2h 5m`, `40s`: the two largest units of an age. */
export function formatAge(seconds: number): string {
  const units: [string, number][] = [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
    ['s', 1],
  ];
  const parts: string[] = [];
  let rest = seconds;
  for (const [unit, size] of units) {
    if (rest >= size || (unit === 's' && parts.length === 0)) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}

export interface CancelResult {
  endorsement_id: string;
  status: EndorsementStatus;
  message: string;
}

/**
 * An operator's cancel (D7), through the same workflow update as the API's cancel: the workflow
 * decides, so a cancel racing the insurer's decision gets the truth. Refused once decided.
 */
export async function cancelAsOperator(
  deps: { temporal: Client; config: Config },
  em: EntityManager,
  endorsementId: string,
): Promise<CancelResult> {
  const read = () => readEndorsementAcrossClients(SystemScope.of(em), endorsementId);
  const row = await read();
  if (!row) throw new OperatorRefusal(`unknown endorsement: ${endorsementId}`);
  if (row.status === 'ENDORSEMENT_STATUS_CANCELLED') {
    return { endorsement_id: row.id, status: row.status, message: 'already cancelled' };
  }
  if (!OPEN_ENDORSEMENT_STATUSES.includes(row.status)) {
    throw new OperatorRefusal(`cannot cancel: the endorsement is ${row.status}`);
  }
  await cancelThroughWorkflow(deps, TenantScope.of(em, row.client_id), {
    id: row.id,
    clientId: row.client_id,
    policyId: row.policy_id,
    employeeId: row.employee_id,
    type: row.type,
  });
  const after = (await read())!;
  if (after.status !== 'ENDORSEMENT_STATUS_CANCELLED') {
    throw new OperatorRefusal(`cannot cancel: the insurer's decision came first (${after.status})`);
  }
  return { endorsement_id: after.id, status: after.status, message: 'cancelled' };
}

/** A leaver's exit still pending after the leaving date (D16), as `ops stuck --exits` lists it. */
export interface OverdueExitRow {
  client_id: string;
  employee_id: string;
  policy_id: string;
  date_of_leaving: string;
  /** Whole days since the leaving date (business dates, Asia/Kolkata). */
  days_overdue: number;
  /** The open endorsements in its way; settling one retries the exit (automatic mode). */
  blocked_by: { endorsement_id: string; web_ui: string }[];
}

/**
 * Exits pending after their leaving date, across clients (or one), oldest first: what the daily
 * pass announces as `employee.exit_overdue`, with the Web UI page of each blocking endorsement.
 */
export async function findOverdueExits(
  em: EntityManager,
  q: Pick<StuckQuery, 'clientId' | 'now' | 'limit' | 'webUi'>,
): Promise<OverdueExitRow[]> {
  const day = businessDate(q.now);
  const rows = await readOverdueExits(SystemScope.of(em), day, { clientId: q.clientId, limit: q.limit });
  return rows.map((r) => ({
    client_id: r.clientId,
    employee_id: r.employeeId,
    policy_id: r.policyId,
    date_of_leaving: r.dateOfLeaving,
    days_overdue: daysBetween(r.dateOfLeaving, day),
    blocked_by: r.blockedBy.map((id) => ({
      endorsement_id: id,
      web_ui: q.webUi(endorsementWorkflowId(id)),
    })),
  }));
}
