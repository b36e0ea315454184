import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Orm } from '../../../db/orm.js';
import { allRoutes } from '../../../api/routes/index.js';
import type { RouteDef } from '../../../api/route.js';
import { ID_PREFIXES } from '../../../domain/ids.js';
import { ROSTER_FIELDS } from '../../../domain/reconciliation/roster-file.js';
import { reconcileRosterFile } from '../../../usecases/reconciliation/roster.js';
import { openPolicyRenewal } from '../../../usecases/policy-year/renewals.js';
import { TenantScope } from '../../../data/scope.js';
import { createLogger } from '../../../infra/logger.js';
import {
  makeClient,
  makeInsurerClient,
  makeDependent,
  makeEmployee,
  makeMember,
  makePolicy,
  makeReferenceData,
  type TestClient,
} from '../../support/factories.js';
import type { HttpClient } from '../../support/http.js';
import { stack } from '../../support/stack.js';

/**
 * A tenant seeded with values found nowhere else (a name, an email, a phone number, a date of birth,
 * an address, a policy number, an insurer, a UHID), so any byte of it in another tenant's response,
 * a log line or a Temporal history is found by a plain text search.
 */
export interface SeededTenant {
  client: TestClient;
  token: string;
  /** A token of an insurer principal for this tenant's insurer (D14: the insurer routes). */
  insurerToken: string;
  /** Every id this tenant owns, by kind (`employee`, `policy`, ...). */
  ids: Record<string, string[]>;
  /** The distinctive values; none may appear in another tenant's answers. */
  values: string[];
  /** Personal data only (names, emails, phones, dates of birth, addresses). */
  personal: string[];
  /** A valid paging cursor of this tenant's policy list. */
  cursor: string;
  policyId: string;
  employeeId: string;
}

export async function seedTenant(api: HttpClient, label: string): Promise<SeededTenant> {
  const tag = `${label}${randomBytes(3).toString('hex')}`.toLowerCase();
  const name = `Zephyrine Quillfeather ${tag}`;
  const email = `zephyrine.${tag}@quillfeather.example`;
  const phone = `+9198${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
  const dob = `1979-11-${String(10 + Math.floor(Math.random() * 18))}`;
  const address = `221B Quokka Lane ${tag}`;
  const dependentName = `Xanthe Quillfeather ${tag}`;
  const policyNumber = `QUOKKA/${tag}`;
  const insurerName = `Quokka Mutual ${tag}`;
  const uhid = `UHID-QUOKKA-${tag}`;

  const client = await makeClient({ name: `Quokka Employer ${tag}` });
  const token = client.token();
  const reference = await makeReferenceData(client.clientId, { insurerName });
  const policy = await makePolicy(client.clientId, { reference, policyNumber });
  const employee = await makeEmployee(client.clientId, {
    name,
    email,
    phoneNumber: phone,
    dateOfBirth: dob,
    address,
    employeeCode: `Q-${tag}`,
  });
  const dependent = await makeDependent(client.clientId, employee.id, { name: dependentName });
  const member = await makeMember(client.clientId, policy.id, employee, { uhid });
  const dependentMember = await makeMember(client.clientId, policy.id, employee, {
    dependentId: dependent.id,
  });
  // A second employee with an open endorsement (the manual insurer leaves it SENT_TO_INSURER).
  const other = await makeEmployee(client.clientId, { name: `${name} Junior`, employeeCode: `Q2-${tag}` });
  const endorsement = await api.post('/v1/policy/endorsements', {
    token,
    body: {
      employee_id: other.id,
      policy_id: policy.id,
      type: 'ADDITION',
      coverage_start_date: '2026-04-01',
      coverage_end_date: '2027-03-31',
    },
  });
  if (endorsement.status !== 200) throw new Error(`seed endorsement: ${endorsement.text}`);
  const ids: Record<string, string[]> = {
    client: [client.clientId],
    employee: [employee.id, other.id],
    dependent: [dependent.id],
    policy: [policy.id],
    member: [member.id, dependentMember.id],
    endorsement: [endorsement.body.payload.endorsement_id],
    insurer: [reference.insurerId],
    tpa: [reference.tpaId],
    product: [reference.productId],
  };
  ids.reconciliation = [await reconcileRoster(policy.id, [uhid, policyNumber, `Q-${tag}`, name, dob])];
  // The policy's renewal draft (D17), as an operator's `renewal:start` opens it: its routes answer the owner.
  await openPolicyRenewal(
    { temporal: stack().temporal, config: stack().config, logger: createLogger('silent') },
    TenantScope.of(stack().serviceOrm.em.fork(), client.clientId),
    policy.id,
    null,
  );
  // A census batch whose one row names the employee (its row answers carry B's values); the row is
  // refused at planning (the employee is covered already), so the batch completes and writes nothing else.
  const census = await api.post('/v1/policy/endorsements/batches', {
    token,
    body: { rows: [{ employee_code: `Q-${tag}`, name, action: 'add', effective_date: '2026-12-01' }] },
  });
  if (census.status !== 202) throw new Error(`seed census batch: ${census.text}`);
  ids.batch = [census.body.payload.batch_id];
  if (allRoutes().some((r) => r.method === 'POST' && r.path === '/v1/policy/grant')) {
    const grant = await api.post('/v1/policy/grant', {
      token,
      body: { employee_id: other.id, start_date: '2026-05-01', end_date: '2027-03-31' },
    });
    if (grant.status === 200) ids.grant = [grant.body.payload.request_id];
  }
  const list = await api.get(`/v1/policy/?client_id=${client.clientId}&limit=1`, { token });
  const insurerToken = (await makeInsurerClient(reference.insurerId)).token();
  return {
    client,
    token,
    insurerToken,
    ids,
    values: [name, email, phone, address, dependentName, policyNumber, insurerName, uhid, `Q-${tag}`],
    personal: [name, email, phone, dob, address, dependentName],
    cursor: list.body.payload.end_cursor,
    policyId: policy.id,
    employeeId: employee.id,
  };
}

/** Every tenant-owned table (a `client_id` column), looked up so new tables are covered too. */
export async function tenantTables(orm: Orm = stack().orm): Promise<string[]> {
  const rows = await orm.em.getConnection().execute<{ table_name: string }[]>(
    `select c.table_name from information_schema.columns c
         join information_schema.tables t on t.table_name = c.table_name and t.table_schema = c.table_schema
        where c.table_schema = 'public' and c.column_name = 'client_id' and t.table_type = 'BASE TABLE'
        order by 1`,
  );
  return rows.map((r) => r.table_name);
}

/**
 * A fingerprint of everything a tenant owns: one md5 per table over its rows, and its client row.
 * `except` leaves out tables a request may legitimately write (the token counter, D4).
 */
export async function tenantSnapshot(
  clientId: string,
  except: string[] = [],
  orm: Orm = stack().orm,
): Promise<Record<string, string>> {
  const conn = orm.em.getConnection();
  const snapshot: Record<string, string> = {};
  for (const table of await tenantTables(orm)) {
    if (except.includes(table)) continue;
    const [row] = await conn.execute<{ h: string }[]>(
      `select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as h from ${table} t where client_id = ?`,
      [clientId],
    );
    snapshot[table] = row!.h;
  }
  const [client] = await conn.execute<{ h: string }[]>(
    'select md5(t::text) as h from clients t where id = ?',
    [clientId],
  );
  snapshot.clients = client!.h;
  return snapshot;
}

/** A snapshot taken once the tenant's own workflows have stopped writing (two equal reads 1 s apart). */
export async function settledSnapshot(
  clientId: string,
  except: string[] = [],
): Promise<Record<string, string>> {
  const deadline = Date.now() + 30_000;
  let previous = await tenantSnapshot(clientId, except);
  for (;;) {
    await sleep(1000);
    const current = await tenantSnapshot(clientId, except);
    if (JSON.stringify(current) === JSON.stringify(previous) || Date.now() > deadline) return current;
    previous = current;
  }
}

/** The id kind a field or path parameter names (`employee_id` -> employee); null when it names none. */
export function idKindOf(field: string): string | null {
  const base = field.replace(/_id$/, '');
  if (field === 'emp_id') return 'employee';
  if (field === 'request_id') return 'grant';
  if (field === 'entity_id') return 'any';
  if (!field.endsWith('_id')) return null;
  return base in ID_PREFIXES ? base : 'any';
}

/** A path parameter's value for the tenant's own request: its id of that kind, or a month (statements). */
export function ownParam(p: string, own: Record<string, string | undefined>): string {
  if (p === 'month') return new Date().toLocaleDateString('en-CA', { timeZone: 'Asia/Kolkata' }).slice(0, 7);
  return own[idKindOf(p) ?? ''] ?? own.employee!;
}

/** The tenant's token a route takes: its insurer principal's on insurer routes (D14), else the client's. */
export const tokenFor = (tenant: SeededTenant, def: RouteDef): string =>
  def.scopes !== 'public' && 'principal' in def && def.principal === 'insurer'
    ? tenant.insurerToken
    : tenant.token;

/** A roster reconciliation of the tenant's policy whose one row names its employee (differences carry B's values). */
async function reconcileRoster(
  policyId: string,
  [uhid, policyNumber, code, name, dob]: string[],
): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tenant-roster-'));
  try {
    const file = path.join(dir, 'roster.csv');
    const header = ROSTER_FIELDS.join(',');
    writeFileSync(
      file,
      `${header}\r\n${uhid}-R,M-1,${policyNumber},${code},${name},${dob},SELF,700000,2026-04-01,2027-03-31,ACTIVE`,
    );
    const s = stack();
    const result = await reconcileRosterFile(
      { em: s.orm.em.fork(), temporal: s.temporal, taskQueue: s.taskQueue },
      policyId,
      file,
    );
    if (result.status !== 'completed') throw new Error(`seed roster: ${JSON.stringify(result)}`);
    return result.reconciliation_id;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
