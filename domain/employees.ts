import type { EntityManager } from '@mikro-orm/postgresql';
import type { Gender, EmployeeStatus } from './enums.js';
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
  address?: string | undefined;
  personalEmail?: string | undefined;
  personalPhoneNumber?: string | undefined;
  lastActiveDate?: string | undefined;
}

export const emailKey = (email: string): string => email.trim().toLowerCase();

/**
 * Creates the user account and the employee, or finds the one that already exists (D6).
 * Idempotency and races are settled by the unique keys (client, email_key) on users and
 * (client, employee_code) / (client, user_id) on employees: a losing insert does nothing and the
 * winner's row is read back, so twenty identical creates leave one row and one id.
 */
export async function createOrFindEmployee(
  em: EntityManager,
  clientId: string,
  input: NewEmployee,
): Promise<{ id: string; created: boolean }> {
  return em.transactional(async (tx) => {
    const conn = tx.getConnection();
    const existing = await findExisting(tx, clientId, input);
    if (existing) return { id: existing, created: false };

    const userRows = await conn.execute<{ id: string }[]>(
      `insert into users (id, client_id, email_key) values (?, ?, ?)
       on conflict (client_id, email_key) do update set email_key = excluded.email_key
       returning id`,
      [newId('user'), clientId, emailKey(input.email)],
    );
    const userId = userRows[0]!.id;
    const inserted = await conn.execute<{ id: string }[]>(
      `insert into employees (id, client_id, user_id, employee_code, name, email, phone_number, date_of_birth,
         gender, designation, department, date_of_joining, address, personal_email, personal_phone_number,
         status, last_active_date)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       on conflict do nothing
       returning id`,
      [
        newId('employee'),
        clientId,
        userId,
        input.employeeCode,
        input.name,
        input.email.trim(),
        input.phoneNumber,
        input.dateOfBirth,
        input.gender,
        input.designation ?? '',
        input.department ?? '',
        input.dateOfJoining ?? null,
        input.address ?? '',
        input.personalEmail ?? '',
        input.personalPhoneNumber ?? '',
        input.status,
        input.lastActiveDate ?? null,
      ],
    );
    if (inserted[0]) return { id: inserted[0].id, created: true };
    const winner = await findExisting(tx, clientId, input);
    if (!winner) throw new Error('employee insert conflicted but no existing row was found');
    return { id: winner, created: false };
  });
}

async function findExisting(em: EntityManager, clientId: string, input: NewEmployee): Promise<string | null> {
  const rows = await em.getConnection().execute<{ id: string }[]>(
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
