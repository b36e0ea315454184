import type { EntityManager } from '@mikro-orm/postgresql';
import { recordAudit } from './audit.js';
import type { Employee } from '../db/entities/index.js';
import type { EmployeeStatus, Gender, Relationship } from './enums.js';
import { newId } from './ids.js';

export interface NewEmployee {
  employeeCode: string;
  name: string;
  email: string;
  phoneNumber: string;
  dateOfBirth: string;
  gender: Gender;
  status: EmployeeStatus;
  designation?: string | undefined;
  department?: string | undefined;
  dateOfJoining?: string | undefined;
  /** Set when the employee is created already inactive (D6: the day the service learns of it). */
  dateOfLeaving?: string | undefined;
  address?: string | undefined;
  personalEmail?: string | undefined;
  personalPhoneNumber?: string | undefined;
  lastActiveDate?: string | undefined;
}

/** Who makes a change: the token's id (`jti`), or null for admin commands and loaders. */
export interface Actor {
  tokenId: string | null;
}
const NO_ACTOR: Actor = { tokenId: null };

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
} as const satisfies Record<keyof NewEmployee, string>;
type Field = keyof typeof COLUMNS;

export const emailKey = (email: string): string => email.trim().toLowerCase();

/** Raw SQL inside the EntityManager's transaction, when it has one. */
const sql = <T extends object[] = Record<string, unknown>[]>(
  em: EntityManager,
  query: string,
  params: unknown[] = [],
): Promise<T> => em.getConnection().execute<T>(query, params, 'all', em.getTransactionContext());

const isUniqueViolation = (err: unknown): boolean => (err as { code?: unknown })?.code === '23505';

/** Thrown inside a create transaction to roll back a losing insert (no orphan user row is left). */
class LostRace extends Error {}

/**
 * Creates the user account and the employee, or finds the one that already exists (D6).
 * Idempotency and races are settled by the unique keys (client, email_key) on users and
 * (client, employee_code) / (client, user_id) on employees: a losing insert does nothing, its
 * transaction is rolled back, and the winner's row is read back, so twenty identical creates leave
 * one row and one id. The create runs in its own transaction (a fork), committed before returning,
 * together with its audit entry.
 */
export async function createOrFindEmployee(
  em: EntityManager,
  clientId: string,
  input: NewEmployee,
  actor: Actor = NO_ACTOR,
): Promise<{ id: string; created: boolean }> {
  const existing = await findExisting(em, clientId, input);
  if (existing) return { id: existing, created: false };
  try {
    const id = await em.fork().transactional((tx) => insertEmployee(tx, clientId, input, actor));
    return { id, created: true };
  } catch (err) {
    if (!(err instanceof LostRace)) throw err;
    const winner = await findExisting(em, clientId, input);
    if (!winner) throw new Error('employee insert conflicted but no existing row was found');
    return { id: winner, created: false };
  }
}

async function insertEmployee(
  tx: EntityManager,
  clientId: string,
  input: NewEmployee,
  actor: Actor,
): Promise<string> {
  // An existing user row is reused (upsert); a concurrent insert of the same key waits for the other.
  const userRows = await sql<{ id: string }[]>(
    tx,
    `insert into users (id, client_id, email_key) values (?, ?, ?)
     on conflict (client_id, email_key) do update set email_key = excluded.email_key
     returning id`,
    [newId('user'), clientId, emailKey(input.email)],
  );
  const inserted = await sql<{ id: string }[]>(
    tx,
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
  const given = (Object.keys(COLUMNS) as Field[]).filter((f) => input[f] !== undefined);
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

async function findExisting(em: EntityManager, clientId: string, input: NewEmployee): Promise<string | null> {
  const rows = await sql<{ id: string }[]>(
    em,
    `select e.id from employees e
       where e.client_id = ? and e.employee_code = ?
     union all
     select e.id from employees e join users u on u.id = e.user_id
       where u.client_id = ? and u.email_key = ?
     limit 1`,
    [clientId, input.employeeCode, clientId, emailKey(input.email)],
  );
  return rows[0]?.id ?? null;
}

/** The fields an update may carry (spec 4.7); date_of_leaving follows status (D6). */
export type EmployeeChanges = Partial<Omit<NewEmployee, 'employeeCode' | 'dateOfLeaving'>>;

/** Changing the official email to one another employee of the client holds. */
export class EmailInUseError extends Error {}

type Row = Record<(typeof COLUMNS)[Field] | 'user_id', string | null>;

/**
 * Applies the fields present, in one transaction holding the employee's row lock: the employee,
 * the user account's email key (its unique key answers a clash, not a prior read), the
 * denormalised name on policy_members (the members keyset sort key), and the audit entry.
 * Returns null for an employee that is not the client's; otherwise the columns that changed.
 */
export async function updateEmployee(
  em: EntityManager,
  clientId: string,
  employeeId: string,
  changes: EmployeeChanges,
  opts: { today: string; actor?: Actor },
): Promise<{ changedFields: string[] } | null> {
  return em.transactional(async (tx) => {
    const rows = await sql<Row[]>(
      tx,
      `select user_id, ${Object.values(COLUMNS).join(', ')} from employees
        where client_id = ? and id = ? for update`,
      [clientId, employeeId],
    );
    const current = rows[0];
    if (!current) return null;
    const next = withLeavingDate(current, changes, opts.today);
    const changed = (Object.keys(next) as Field[]).filter((f) => next[f] !== current[COLUMNS[f]]);
    if (changed.length === 0) return { changedFields: [] };

    if (changed.includes('email') && emailKey(next.email!) !== emailKey(current.email!)) {
      await changeEmailKey(tx, clientId, current.user_id!, next.email!);
    }
    await sql(
      tx,
      `update employees set ${changed.map((f) => `${COLUMNS[f]} = ?`).join(', ')}, updated_at = now()
        where client_id = ? and id = ?`,
      [...changed.map((f) => next[f] ?? null), clientId, employeeId],
    );
    if (changed.includes('name')) {
      await sql(
        tx,
        'update policy_members set employee_name = ?, updated_at = now() where client_id = ? and employee_id = ?',
        [next.name, clientId, employeeId],
      );
    }
    const changedFields = changed.map((f) => COLUMNS[f]);
    await recordAudit(tx, {
      clientId,
      entity: 'employee',
      entityId: employeeId,
      action: 'update',
      changedFields,
      actorTokenId: (opts.actor ?? NO_ACTOR).tokenId,
    });
    return { changedFields };
  });
}

/**
 * D6: leaving ACTIVE sets date_of_leaving to today (Asia/Kolkata); returning to ACTIVE clears it;
 * moving between the two inactive statuses keeps the day the employee left.
 */
function withLeavingDate(
  current: Row,
  changes: EmployeeChanges,
  today: string,
): Partial<Record<Field, string | null>> {
  const next: Partial<Record<Field, string | null>> = Object.fromEntries(
    Object.entries(changes).filter(([, v]) => v !== undefined),
  );
  if (changes.email !== undefined) next.email = changes.email.trim();
  if (changes.status === undefined || changes.status === current.status) return next;
  if (changes.status === 'ACTIVE') next.dateOfLeaving = null;
  else if (current.status === 'ACTIVE' || !current.date_of_leaving) next.dateOfLeaving = today;
  return next;
}

async function changeEmailKey(tx: EntityManager, clientId: string, userId: string, email: string) {
  try {
    await sql(tx, 'update users set email_key = ? where client_id = ? and id = ?', [
      emailKey(email),
      clientId,
      userId,
    ]);
  } catch (err) {
    if (isUniqueViolation(err)) throw new EmailInUseError('official email belongs to another user account');
    throw err;
  }
}

export interface BulkItem {
  employeeId: string;
  lastActiveDate?: string | undefined;
}

/**
 * Bulk update (spec 4.8, D6) in a bounded number of statements whatever the item count: one locking
 * read of every id, one set-based UPDATE from arrays, one batched audit insert, in one transaction.
 * Locks are taken in id order so two overlapping bulk requests cannot deadlock. A later item for the
 * same employee wins. Returns the ids that belong to the client (the others are unknown).
 */
export async function bulkUpdateEmployees(
  em: EntityManager,
  clientId: string,
  items: readonly BulkItem[],
  actor: Actor = NO_ACTOR,
): Promise<Set<string>> {
  if (items.length === 0) return new Set();
  return em.transactional(async (tx) => {
    const ids = [...new Set(items.map((i) => i.employeeId))];
    const rows = await sql<{ id: string; last_active_date: string | null }[]>(
      tx,
      'select id, last_active_date from employees where client_id = ? and id in (?) order by id for update',
      [clientId, ids],
    );
    const current = new Map(rows.map((r) => [r.id, r.last_active_date]));
    const wanted = new Map<string, string>();
    for (const item of items) {
      if (current.has(item.employeeId) && item.lastActiveDate !== undefined)
        wanted.set(item.employeeId, item.lastActiveDate);
    }
    const changes = [...wanted].filter(([id, date]) => current.get(id) !== date);
    if (changes.length > 0) {
      await sql(
        tx,
        `update employees e set last_active_date = v.last_active_date, updated_at = now()
           from unnest(array[?]::text[], array[?]::date[]) as v(id, last_active_date)
          where e.client_id = ? and e.id = v.id`,
        [changes.map(([id]) => id), changes.map(([, date]) => date), clientId],
      );
      await recordAudit(
        tx,
        changes.map(([id]) => ({
          clientId,
          entity: 'employee',
          entityId: id,
          action: 'bulk_update',
          changedFields: ['last_active_date'],
          actorTokenId: actor.tokenId,
        })),
      );
    }
    return new Set(current.keys());
  });
}

export interface NewDependent {
  name: string;
  relationship: Relationship;
  dateOfBirth: string;
  gender: Gender;
}

/**
 * Adds a dependent to the client's employee. Idempotent on the person: the unique key (client,
 * employee, relationship, lower(name), date_of_birth) turns a repeated add, also a racing one, into
 * the existing dependent. Returns null when the employee is not the client's.
 */
export async function addDependent(
  em: EntityManager,
  clientId: string,
  employeeId: string,
  input: NewDependent,
  actor: Actor = NO_ACTOR,
): Promise<{ id: string; created: boolean } | null> {
  return em.transactional(async (tx) => {
    // FOR SHARE: the employee cannot vanish or change tenant under the insert.
    const owner = await sql(tx, 'select 1 from employees where client_id = ? and id = ? for share', [
      clientId,
      employeeId,
    ]);
    if (owner.length === 0) return null;
    const params = [clientId, employeeId, input.relationship, input.name, input.dateOfBirth];
    const inserted = await sql<{ id: string }[]>(
      tx,
      `insert into dependents (id, client_id, employee_id, relationship, name, date_of_birth, gender)
       values (?, ?, ?, ?, ?, ?, ?) on conflict do nothing returning id`,
      [newId('dependent'), ...params, input.gender],
    );
    const id = inserted[0]?.id;
    if (!id) {
      const found = await sql<{ id: string }[]>(
        tx,
        `select id from dependents where client_id = ? and employee_id = ? and relationship = ?
            and lower(name) = lower(?) and date_of_birth = ?`,
        params,
      );
      return { id: found[0]!.id, created: false };
    }
    await recordAudit(tx, {
      clientId,
      entity: 'employee',
      entityId: employeeId,
      action: 'dependent_create',
      changedFields: ['dependents'],
      actorTokenId: actor.tokenId,
    });
    return { id, created: true };
  });
}

/** Columns of the profile under their entity names, so a raw row presents like an entity. */
const PROFILE_COLUMNS = `id, user_id as "userId", client_id as "clientId", employee_code as "employeeCode", name, email,
  phone_number as "phoneNumber", date_of_birth as "dateOfBirth", gender, designation, department,
  date_of_joining as "dateOfJoining", date_of_leaving as "dateOfLeaving", address, personal_email as "personalEmail",
  personal_phone_number as "personalPhoneNumber", is_admin as "isAdmin", status, last_active_date as "lastActiveDate"`;

/**
 * The hot read of Get Employee: one statement by primary key, filtered by the client (D1), without
 * entity hydration (which costs several times the query on this path).
 */
export async function findEmployeeProfile(
  em: EntityManager,
  clientId: string,
  employeeId: string,
): Promise<Omit<Employee, 'createdAt' | 'updatedAt'> | null> {
  const rows = await em.execute<Omit<Employee, 'createdAt' | 'updatedAt'>[]>(
    `select ${PROFILE_COLUMNS} from employees where client_id = ? and id = ?`,
    [clientId, employeeId],
  );
  return rows[0] ?? null;
}
