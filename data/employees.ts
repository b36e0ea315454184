import {
  EmailInUseError,
  emailKey,
  leavingChanges,
  NO_ACTOR,
  withLeavingDate,
  type Actor,
  type BulkItem,
  type EmployeeChanges,
  type EmployeeField,
  type EmployeeValues,
  type NewEmployee,
} from '../domain/employees.js';
import type { EmployeeStatus, Gender } from '../domain/enums.js';
import { newId } from '../domain/ids.js';
import { recordAudit } from './audit.js';
import { jsonbLiteral } from './bulk-json.js';
import { renameMembersOfEmployee } from './members.js';
import { TenantScope } from './scope.js';

/** Stored column of every writable employee field; audit entries name these columns. */
const COLUMNS = {
  employeeCode: 'employee_code',
  name: 'name',
  email: 'email',
  phoneNumber: 'phone_number',
  dateOfBirth: 'date_of_birth',
  gender: 'gender',
  designation: 'designation',
  department: 'department',
  dateOfJoining: 'date_of_joining',
  dateOfLeaving: 'date_of_leaving',
  address: 'address',
  personalEmail: 'personal_email',
  personalPhoneNumber: 'personal_phone_number',
  status: 'status',
  lastActiveDate: 'last_active_date',
} as const satisfies Record<EmployeeField, string>;

const isUniqueViolation = (err: unknown): boolean => (err as { code?: unknown })?.code === '23505';

/** Thrown inside a create transaction to roll back a losing insert (no orphan user row is left). */
class LostRace extends Error {}

/**
 * Creates the user account and the employee, or finds the one that already exists (D6).
 * Idempotency and races are settled by the unique keys (client, email_key) on users and
 * (client, employee_code) / (client, user_id) on employees: a losing insert does nothing, its
 * transaction is rolled back, and the winner's row is read back, so twenty identical creates leave
 * one row and one id. The create runs in its own transaction (on a fresh scope), committed before
 * returning, together with its audit entry.
 */
export async function createOrFindEmployee(
  scope: TenantScope,
  input: NewEmployee,
  actor: Actor = NO_ACTOR,
): Promise<{ id: string; created: boolean }> {
  const existing = await findExisting(scope, input);
  if (existing) return { id: existing, created: false };
  try {
    const own = TenantScope.of(scope.em, scope.clientId);
    const id = await own.transaction((tx) => insertEmployee(tx, input, actor));
    return { id, created: true };
  } catch (err) {
    if (!(err instanceof LostRace)) throw err;
    const winner = await findExisting(scope, input);
    if (!winner) throw new Error('employee insert conflicted but no existing row was found');
    return { id: winner, created: false };
  }
}

async function insertEmployee(tx: TenantScope, input: NewEmployee, actor: Actor): Promise<string> {
  const { clientId } = tx;
  // An existing user row is reused (upsert); a concurrent insert of the same key waits for the other.
  const userRows = await tx.sql<{ id: string }>(
    `insert into users (id, client_id, email_key) values (?, ?, ?)
     on conflict (client_id, email_key) do update set email_key = excluded.email_key
     returning id`,
    [newId('user'), clientId, emailKey(input.email)],
  );
  const inserted = await tx.sql<{ id: string }>(
    `insert into employees (id, client_id, user_id, employee_code, name, email, phone_number, date_of_birth,
       gender, designation, department, date_of_joining, date_of_leaving, address, personal_email,
       personal_phone_number, status, last_active_date)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     on conflict do nothing
     returning id`,
    [
      newId('employee'),
      clientId,
      userRows[0]!.id,
      input.employeeCode,
      input.name,
      input.email.trim(),
      input.phoneNumber,
      input.dateOfBirth,
      input.gender,
      input.designation ?? '',
      input.department ?? '',
      input.dateOfJoining ?? null,
      input.dateOfLeaving ?? null,
      input.address ?? '',
      input.personalEmail ?? '',
      input.personalPhoneNumber ?? '',
      input.status,
      input.lastActiveDate ?? null,
    ],
  );
  const id = inserted[0]?.id;
  if (!id) throw new LostRace();
  const given = (Object.keys(COLUMNS) as EmployeeField[]).filter((f) => input[f] !== undefined);
  await recordAudit(tx, {
    clientId,
    entity: 'employee',
    entityId: id,
    action: 'create',
    changedFields: given.map((f) => COLUMNS[f]),
    actorTokenId: actor.tokenId,
  });
  return id;
}

async function findExisting(scope: TenantScope, input: NewEmployee): Promise<string | null> {
  const rows = await scope.sql<{ id: string }>(
    `select e.id from employees e
       where e.client_id = ? and e.employee_code = ?
     union all
     select e.id from employees e join users u on u.id = e.user_id
       where u.client_id = ? and u.email_key = ?
     limit 1`,
    [scope.clientId, input.employeeCode, scope.clientId, emailKey(input.email)],
  );
  return rows[0]?.id ?? null;
}

type Row = Record<(typeof COLUMNS)[EmployeeField] | 'user_id', string | null>;

/**
 * Applies the fields present, in one transaction holding the employee's row lock: the employee,
 * the user account's email key (its unique key answers a clash, not a prior read), the
 * denormalised name on policy_members (the members keyset sort key), and the audit entry.
 * Returns null for an employee that is not the client's; otherwise the columns that changed.
 */
export async function updateEmployee(
  scope: TenantScope,
  employeeId: string,
  changes: EmployeeChanges,
  opts: { today: string; actor?: Actor },
): Promise<{ changedFields: string[] } | null> {
  return scope.transaction(async (tx) => {
    const rows = await tx.sql<Row>(
      `select user_id, ${Object.values(COLUMNS).join(', ')} from employees
        where client_id = ? and id = ? for update`,
      [tx.clientId, employeeId],
    );
    const current = rows[0];
    if (!current) return null;
    const next = withLeavingDate(
      { status: current.status, dateOfLeaving: current.date_of_leaving },
      changes,
      opts.today,
    );
    const changed = (Object.keys(next) as EmployeeField[]).filter((f) => next[f] !== current[COLUMNS[f]]);
    if (changed.length === 0) return { changedFields: [] };

    if (changed.includes('email') && emailKey(next.email!) !== emailKey(current.email!)) {
      await changeEmailKey(tx, current.user_id!, next.email!);
    }
    await tx.sql(
      `update employees set ${changed.map((f) => `${COLUMNS[f]} = ?`).join(', ')}, updated_at = now()
        where client_id = ? and id = ?`,
      [...changed.map((f) => next[f] ?? null), tx.clientId, employeeId],
    );
    if (changed.includes('name')) await renameMembersOfEmployee(tx, employeeId, next.name!);
    const changedFields = changed.map((f) => COLUMNS[f]);
    await recordAudit(tx, {
      clientId: tx.clientId,
      entity: 'employee',
      entityId: employeeId,
      action: 'update',
      changedFields,
      actorTokenId: (opts.actor ?? NO_ACTOR).tokenId,
    });
    return { changedFields };
  });
}

async function changeEmailKey(tx: TenantScope, userId: string, email: string) {
  try {
    await tx.sql('update users set email_key = ? where client_id = ? and id = ?', [
      emailKey(email),
      tx.clientId,
      userId,
    ]);
  } catch (err) {
    if (isUniqueViolation(err)) throw new EmailInUseError('official email belongs to another user account');
    throw err;
  }
}

/**
 * Bulk update (spec 4.8, D6) in a bounded number of statements whatever the item count. Returns the
 * ids that belong to the client (the others are unknown). A later item for the same employee wins.
 *
 * Concurrency: every row is locked in id order before any is written, so two overlapping bulk
 * requests cannot deadlock, and each change is applied to the row as it is once locked (a date
 * already in place writes neither the row nor an audit row). Idempotency: a repeat of the same
 * request changes nothing and records nothing.
 *
 * Last-active dates alone (the common request) are one statement (lock, update, audit rows), which
 * PostgreSQL runs as one transaction. A status change (D16 exit) needs the rows' current status in
 * hand first: one locking read, the set-based exit update, then the same statement, in a transaction.
 */
export async function bulkUpdateEmployees(
  scope: TenantScope,
  items: readonly BulkItem[],
  actor: Actor = NO_ACTOR,
  /** The day a status change without a leaving date takes (D6); required when an item has one. */
  today?: string,
): Promise<Set<string>> {
  if (items.length === 0) return new Set();
  if (!items.some(changesLeaving)) return updateLastActive(scope, items, actor);
  if (today === undefined) throw new Error('a status change needs today');
  const ids = [...new Set(items.map((i) => i.employeeId))];
  return scope.transaction(async (tx) => {
    const rows = await tx.sql<{ id: string; status: string; date_of_leaving: string | null }>(
      `select id, status, date_of_leaving::text as date_of_leaving from employees
        where client_id = ? and id in (?) order by id for update`,
      [tx.clientId, ids],
    );
    const leaving = new Map(rows.map((r) => [r.id, { status: r.status, dateOfLeaving: r.date_of_leaving }]));
    await applyLeaving(tx, leavingChanges(items, leaving, today), actor);
    return updateLastActive(tx, items, actor);
  });
}

const changesLeaving = (item: BulkItem): boolean =>
  item.status !== undefined || item.dateOfLeaving !== undefined;

/**
 * The last-active dates of `items` in one statement: locks every item's row in id order, updates the
 * rows whose date differs from the locked row's (the last item for an employee wins; a request that
 * changes nothing writes nothing), writes one audit row per updated row, and answers the client's ids.
 * The items travel as one inlined JSON value (data/bulk-json.ts), not as hundreds of escaped literals.
 * In the exit path the rows are already locked by the caller's read; locking them again is a no-op.
 */
async function updateLastActive(
  scope: TenantScope,
  items: readonly BulkItem[],
  actor: Actor,
): Promise<Set<string>> {
  const sent = items.map((i, n) => ({ id: i.employeeId, last_active_date: i.lastActiveDate ?? null, n }));
  const rows = await scope.sql<{ id: string }>(
    `with sent as (
       select * from jsonb_to_recordset(${jsonbLiteral(sent)}) as v(id text, last_active_date date, n int)),
     wanted as (
       select distinct on (id) id, last_active_date from sent where last_active_date is not null
        order by id, n desc),
     known as (
       select id, last_active_date from employees
        where client_id = ? and id = any(array(select id from sent)) order by id for update),
     changed as (
       update employees e set last_active_date = w.last_active_date, updated_at = now()
         from wanted w join known k on k.id = w.id and k.last_active_date is distinct from w.last_active_date
        where e.client_id = ? and e.id = w.id
        returning e.id),
     audited as (
       insert into audit_events (client_id, entity, entity_id, action, changed_fields, actor_token_id)
       select ?, 'employee', id, 'bulk_update', array['last_active_date'], ? from changed)
     select id from known`,
    [scope.clientId, scope.clientId, scope.clientId, actor.tokenId],
  );
  return new Set(rows.map((r) => r.id));
}

/** The bulk update's status changes (D16 exits) in one set-based UPDATE and one batched audit insert. */
async function applyLeaving(
  tx: TenantScope,
  changes: [string, EmployeeValues][],
  actor: Actor,
): Promise<void> {
  if (changes.length === 0) return;
  await tx.sql(
    `update employees e set status = coalesce(v.status, e.status),
            date_of_leaving = case when v.keep then e.date_of_leaving else v.date_of_leaving end, updated_at = now()
       from unnest(array[?]::text[], array[?]::text[], array[?]::date[], array[?]::boolean[])
            as v(id, status, date_of_leaving, keep)
      where e.client_id = ? and e.id = v.id`,
    [
      changes.map(([id]) => id),
      changes.map(([, c]) => c.status ?? null),
      changes.map(([, c]) => c.dateOfLeaving ?? null),
      changes.map(([, c]) => !('dateOfLeaving' in c)),
      tx.clientId,
    ],
  );
  await recordAudit(
    tx,
    changes.map(([id, c]) => ({
      clientId: tx.clientId,
      entity: 'employee',
      entityId: id,
      action: 'bulk_update',
      changedFields: Object.keys(c).map((f) => COLUMNS[f as EmployeeField]),
      actorTokenId: actor.tokenId,
    })),
  );
}

/** The stored fields Get Employee answers with. */
export interface EmployeeProfile {
  id: string;
  userId: string;
  clientId: string;
  employeeCode: string;
  name: string;
  email: string;
  phoneNumber: string;
  dateOfBirth: string;
  gender: Gender;
  designation: string;
  department: string;
  dateOfJoining: string | null;
  dateOfLeaving: string | null;
  address: string;
  personalEmail: string;
  personalPhoneNumber: string;
  isAdmin: boolean;
  status: EmployeeStatus;
  lastActiveDate: string | null;
}

/** Columns of the profile under their field names, so the row is the profile as it is. */
const PROFILE_COLUMNS = `id, user_id as "userId", client_id as "clientId", employee_code as "employeeCode", name, email,
  phone_number as "phoneNumber", date_of_birth as "dateOfBirth", gender, designation, department,
  date_of_joining as "dateOfJoining", date_of_leaving as "dateOfLeaving", address, personal_email as "personalEmail",
  personal_phone_number as "personalPhoneNumber", is_admin as "isAdmin", status, last_active_date as "lastActiveDate"`;

/**
 * The hot read of Get Employee: one statement by primary key, filtered by the client (D1), without
 * entity hydration (which costs several times the query on this path).
 */
export async function findEmployeeProfile(
  scope: TenantScope,
  employeeId: string,
): Promise<EmployeeProfile | null> {
  const rows = await scope.sql<EmployeeProfile>(
    `select ${PROFILE_COLUMNS} from employees where client_id = ? and id = ?`,
    [scope.clientId, employeeId],
  );
  return rows[0] ?? null;
}
