import { grantWorkflowId } from '../../workflows/grant/contract.js';
import {
  makeClient,
  makeEmployee,
  makePolicy,
  makeReferenceData,
  sql,
  type PolicyOverrides,
  type TestClient,
} from '../support/factories.js';
import type { HttpClient } from '../support/http.js';
import { stack } from '../support/stack.js';
import { endorsementApi, waitFor } from './endorsement-support.js';

/** Shared helpers of the grant tests: a client with policies, the grant API, polling. */

export interface GrantWorld {
  client: TestClient;
  clientId: string;
  token: string;
  api: HttpClient;
  employee: { id: string; name: string };
  /** Policies by name; every one on the `manual` insurer adapter. */
  policies: Record<string, { id: string; policyNumber: string }>;
}

export async function grantWorld(policies: Record<string, PolicyOverrides> = { a: {} }): Promise<GrantWorld> {
  const client = await makeClient();
  const reference = await makeReferenceData(client.clientId, { adapter: 'manual' });
  const made: GrantWorld['policies'] = {};
  for (const [name, o] of Object.entries(policies)) {
    made[name] = await makePolicy(client.clientId, { reference, ...o });
  }
  const employee = await makeEmployee(client.clientId);
  return {
    client,
    clientId: client.clientId,
    token: client.token(),
    api: await endorsementApi(),
    employee,
    policies: made,
  };
}

export interface GrantBody {
  employee_id?: unknown;
  start_date?: unknown;
  end_date?: unknown;
  policy_id?: unknown;
  [field: string]: unknown;
}

export const postGrant = (w: GrantWorld, body: GrantBody, headers: Record<string, string> = {}) =>
  w.api.post('/v1/policy/grant', {
    token: w.token,
    body: { employee_id: w.employee.id, start_date: '2026-04-01', end_date: '2027-03-31', ...body },
    headers,
  });

/** POST /v1/policy/grant; returns the request id (asserting 200). */
export async function grant(w: GrantWorld, body: GrantBody = {}): Promise<string> {
  const res = await postGrant(w, body);
  if (res.status !== 200) throw new Error(`grant failed: ${res.status} ${res.text}`);
  return res.body.payload.request_id as string;
}

export async function getGrant(w: GrantWorld, id: string): Promise<any> {
  const res = await w.api.get(`/v1/policy/grant/${id}`, { token: w.token });
  if (res.status !== 200) throw new Error(`get grant failed: ${res.status} ${res.text}`);
  return res.body.payload.grant;
}

/** Polls the GET until the grant satisfies `done`. */
export const waitForGrant = (w: GrantWorld, id: string, done: (g: any) => boolean, what: string) =>
  waitFor(() => getGrant(w, id), done, `grant ${id}: ${what}`);

/** Until every endorsement the grant created has reached `status`. */
export const waitForEndorsements = (w: GrantWorld, id: string, status: string, count: number) =>
  waitForGrant(
    w,
    id,
    (g) => g.endorsements.filter((e: any) => e.endorsement_id && e.status === status).length === count,
    `${count} endorsement(s) ${status}`,
  );

export const grantHandle = (id: string) => stack().temporal.workflow.getHandle(grantWorkflowId(id));

export async function grantAudit(id: string): Promise<string[]> {
  const rows = await sql(
    `select action from audit_events where entity = 'grant' and entity_id = ? order by id`,
    [id],
  );
  return rows.map((r) => r.action as string);
}

export async function countRows(table: 'grants' | 'endorsements', employeeId: string): Promise<number> {
  const [row] = await sql(`select count(*)::int as n from ${table} where employee_id = ?`, [employeeId]);
  return Number(row.n);
}
