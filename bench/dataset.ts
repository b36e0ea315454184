import type { EntityManager } from '@mikro-orm/postgresql';
import { createClient } from '../usecases/clients.js';
import { newId } from '../domain/ids.js';
import { SCOPES } from '../domain/scopes.js';

export interface BenchDataset {
  /** The prefix of its ids (`emp_<tag>1` …). */
  tag: string;
  clientId: string;
  clientSecret: string;
  policyIds: string[];
  /** The policy carrying the 20,000 member rows. */
  membersPolicyId: string;
  employeeIds: string[];
}

export interface DatasetShape {
  /** Prefix of every id, email and policy number, so several datasets share one database. */
  tag?: string;
  /**
   * Member rows on the first policy: each employee and its first dependent, then a second dependent
   * (a child) for as many employees as it takes to reach this (default: two per employee).
   */
  members?: number;
}

/**
 * One client, 5 policies, 10,000 employees each with one dependent, and 20,000 member rows on the first
 * policy (employee + dependent), written set-based so the dataset loads in seconds. `shape` gives
 * another client of another size beside it (bench/large.ts).
 */
export async function loadBenchDataset(
  em: EntityManager,
  employees = 10_000,
  shape: DatasetShape = {},
): Promise<BenchDataset> {
  const tag = shape.tag ?? 'bench';
  if (!/^[a-z0-9]+$/.test(tag)) throw new Error(`a dataset tag is lower-case letters and digits: ${tag}`);
  const children = Math.max(0, (shape.members ?? 2 * employees) - 2 * employees);
  if (children > employees) throw new Error(`at most ${3 * employees} members for ${employees} employees`);
  const name = tag === 'bench' ? 'Bench Employer' : `Bench Employer ${tag}`;
  const { client_id: clientId, client_secret: clientSecret } = await createClient(em, name, [...SCOPES]);
  const conn = em.getConnection();
  // The platform's partners (one row per code, D12): a second dataset in the same database reuses them.
  const partner = async (query: string, params: unknown[]) =>
    (
      await conn.execute<{ id: string }[]>(
        `${query} on conflict (code) do update set name = excluded.name returning id`,
        params,
      )
    )[0]!.id;
  const insurerId = await partner(
    `insert into insurers (id, code, name, logo_url, adapter) values (?, 'BENCH', 'Bench Insurance', 'https://logo.example.com/b.png', 'simulated')`,
    [newId('insurer')],
  );
  const tpaId = await partner(`insert into tpas (id, code, name) values (?, 'BTPA', 'Bench TPA')`, [
    newId('tpa'),
  ]);
  const productId = await partner(
    `insert into products (id, insurer_id, code, name, category) values (?, ?, 'BGH', 'Bench Group Health', 'Group Health')`,
    [newId('product'), insurerId],
  );
  const policyIds = Array.from({ length: 5 }, () => newId('policy'));
  for (const [i, id] of policyIds.entries()) {
    await conn.execute(
      `insert into policies (id, client_id, policy_number, insurer_id, product_id, tpa_id, net_premium, gross_premium,
         coverage_type, type, status, start_date, end_date, slabs, default_sum_insured, cd_balance, cd_entries)
       values (?, ?, ?, ?, ?, ?, 100000, 118000, 'COVERAGE_TYPE_ESC', 'POLICY_TYPE_FAMILY_FLOATER', 'POLICY_STATUS_ACTIVE',
         ?, ?, '[{"sum_insured":"300000.00","annual_premium":"3650.00"},{"sum_insured":"500000.00","annual_premium":"7300.00"}]', 300000, 100000000, 1)`,
      [
        id,
        clientId,
        `${tag.toUpperCase()}/${i}`,
        insurerId,
        productId,
        tpaId,
        `2026-0${i + 1}-01`,
        `2027-0${i + 1}-01`,
      ],
    );
  }
  // The opening balance is each policy's first ledger entry, as a load writes it (the ledger sums to the balance).
  for (const id of policyIds) {
    await conn.execute(
      `insert into cd_ledger_entries (id, client_id, policy_id, kind, amount, balance_after, reference, seq, reason)
       values (?, ?, ?, 'adjustment', 100000000, 100000000, 'opening-balance', 1, 'opening balance')`,
      [newId('ledger'), clientId, id],
    );
  }
  const membersPolicyId = policyIds[0]!;
  // In slices of 20,000 employees: one statement each stays well inside the statement timeout on a loaded machine.
  for (let from = 1; from <= employees; from += 20_000) {
    const to = Math.min(employees, from + 19_999);
    await conn.execute(
      `insert into users (id, client_id, email_key)
         select 'usr_${tag}' || g, ?, '${tag}.' || g || '@example.com' from generate_series(?::int, ?::int) g`,
      [clientId, from, to],
    );
    await conn.execute(
      `insert into employees (id, client_id, user_id, employee_code, name, email, phone_number, date_of_birth, gender, status, department)
         select 'emp_${tag}' || g, ?, 'usr_${tag}' || g, 'B-' || g, initcap(substr(md5(g::text), 1, 7)) || ' ' || initcap(substr(md5((g * 7)::text), 1, 9)),
                '${tag}.' || g || '@example.com', '+919800000000', date '1980-01-01' + (g % 9000), 'FEMALE', 'ACTIVE', 'Engineering'
         from generate_series(?::int, ?::int) g`,
      [clientId, from, to],
    );
    await conn.execute(
      `insert into dependents (id, client_id, employee_id, name, relationship, date_of_birth, gender)
         select 'dep_${tag}' || g, ?, 'emp_${tag}' || g, 'Spouse ' || g, 'SPOUSE', date '1982-01-01' + (g % 9000), 'MALE'
         from generate_series(?::int, ?::int) g
       union all
         select 'dep_${tag}' || g || '_2', ?, 'emp_${tag}' || g, 'Child ' || g, 'CHILD', date '2015-01-01' + (g % 3000), 'MALE'
         from generate_series(?::int, least(?::int, ?::int)) g`,
      [clientId, from, to, clientId, from, to, children],
    );
    // The employee's row (rank 0), then its dependents' (rank 1), as an approval writes them.
    await conn.execute(
      `insert into policy_members (id, client_id, policy_id, employee_id, dependent_id, coverage_start_date, coverage_end_date,
         premium_amount, sum_insured, remaining_sum_insured, status, employee_name, member_rank)
         select 'mem_${tag}' || g || '_' || r, ?, ?, e.id, case when r = 1 then 'dep_${tag}' || g when r = 2 then 'dep_${tag}' || g || '_2' end,
                date '2026-01-01', date '2027-01-01', 3650, 300000, 300000, 'active', e.name, least(r, 1)
         from generate_series(?::int, ?::int) g join employees e on e.id = 'emp_${tag}' || g
         cross join (values (0), (1), (2)) v(r)
         where r < 2 or g <= ?`,
      [clientId, membersPolicyId, from, to, children],
    );
  }
  await conn.execute('analyze');
  const employeeIds = Array.from({ length: employees }, (_, i) => `emp_${tag}${i + 1}`);
  return { tag, clientId, clientSecret, policyIds, membersPolicyId, employeeIds };
}

/**
 * Bodies that change every employee's date on each request, so every request really writes (a date
 * already in place writes nothing): 20 slices of 100 employees, each visited with one date and then,
 * 20 requests later, with the same day a year earlier.
 */
export function bulkBodies(ids: string[]): string[] {
  return Array.from({ length: 40 }, (_, k) => {
    const n = k % 20;
    return JSON.stringify({
      employees: ids.slice(n * 100, n * 100 + 100).map((id, i) => ({
        emp_id: id,
        last_active_date: `${k < 20 ? 2026 : 2025}-0${1 + ((n + i) % 9)}-1${n % 10}`,
      })),
    });
  });
}
