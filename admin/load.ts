import type { EntityManager } from '@mikro-orm/postgresql';
import { newEmployeeFromRequest, storedGender } from '../api/schemas/employees.js';
import { createOrFindEmployee } from '../data/employees.js';
import { TenantScope } from '../data/scope.js';
import { looksLikeId, newId } from '../domain/ids.js';
import { AdminError } from './clients.js';
import type { LoadFile } from './load-schema.js';

export interface LoadResult {
  insurers: Record<string, string>;
  tpas: Record<string, string>;
  products: Record<string, string>;
  policies: Record<string, string>;
  employees: Record<string, string>;
}

/**
 * Loads reference data for one client in one transaction. Re-loading the same file is safe: rows are
 * keyed by (client, code) / (client, policy_number) and updated in place; employees are created once.
 */
export async function loadReferenceData(
  em: EntityManager,
  clientId: string,
  data: LoadFile,
): Promise<LoadResult> {
  if (!looksLikeId('client', clientId)) throw new AdminError(`no client ${clientId}`);
  return TenantScope.of(em, clientId).transaction(async (scope) => {
    const tx = scope.em;
    const exists = await tx.execute('select 1 from clients where id = ?', [clientId]);
    if (exists.length === 0) throw new AdminError(`no client ${clientId}`);
    const out: LoadResult = { insurers: {}, tpas: {}, products: {}, policies: {}, employees: {} };
    const need = (map: Record<string, string>, code: string, what: string) => {
      const id = map[code];
      if (!id) throw new AdminError(`${what} "${code}" is not defined in the file`);
      return id;
    };

    for (const i of data.insurers) {
      const [row] = await tx.execute<{ id: string }[]>(
        `insert into insurers (id, client_id, code, name, logo_url, network_hospital_url, daycare_url, adapter)
         values (?, ?, ?, ?, ?, ?, ?, ?)
         on conflict (client_id, code) do update set name = excluded.name, logo_url = excluded.logo_url,
           network_hospital_url = excluded.network_hospital_url, daycare_url = excluded.daycare_url, adapter = excluded.adapter
         returning id`,
        [
          newId('insurer'),
          clientId,
          i.code,
          i.name,
          i.logo_url,
          i.network_hospital_url ?? null,
          i.daycare_url ?? null,
          i.adapter,
        ],
      );
      out.insurers[i.code] = row!.id;
    }
    for (const t of data.tpas) {
      const [row] = await tx.execute<{ id: string }[]>(
        `insert into tpas (id, client_id, code, name) values (?, ?, ?, ?)
         on conflict (client_id, code) do update set name = excluded.name returning id`,
        [newId('tpa'), clientId, t.code, t.name],
      );
      out.tpas[t.code] = row!.id;
    }
    for (const p of data.products) {
      const [row] = await tx.execute<{ id: string }[]>(
        `insert into products (id, client_id, insurer_id, code, name, category) values (?, ?, ?, ?, ?, ?)
         on conflict (client_id, code) do update set name = excluded.name, category = excluded.category,
           insurer_id = excluded.insurer_id returning id`,
        [newId('product'), clientId, need(out.insurers, p.insurer, 'insurer'), p.code, p.name, p.category],
      );
      out.products[p.code] = row!.id;
    }
    for (const p of data.policies) {
      const slabs = p.slabs.map((s) => ({ sum_insured: s.sum_insured, annual_premium: s.annual_premium }));
      const [row] = await tx.execute<{ id: string }[]>(
        `insert into policies (id, client_id, policy_number, insurer_id, product_id, tpa_id, net_premium, gross_premium,
           coverage_type, type, status, start_date, end_date, slabs, default_sum_insured, inclusions, exclusions,
           terms_conditions, policy_document_url, network_hospital_url, daycare_url, cd_balance)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?, ?, ?, ?)
         on conflict (client_id, policy_number) do update set status = excluded.status, slabs = excluded.slabs,
           default_sum_insured = excluded.default_sum_insured, start_date = excluded.start_date, end_date = excluded.end_date
         returning id`,
        [
          newId('policy'),
          clientId,
          p.policy_number,
          need(out.insurers, p.insurer, 'insurer'),
          need(out.products, p.product, 'product'),
          need(out.tpas, p.tpa, 'tpa'),
          p.net_premium,
          p.gross_premium,
          p.coverage_type,
          p.type,
          p.status,
          p.start_date,
          p.end_date,
          JSON.stringify(slabs),
          p.default_sum_insured ?? slabs[0]!.sum_insured,
          p.inclusions,
          p.exclusions,
          p.terms_conditions,
          p.policy_document_url,
          p.network_hospital_url ?? null,
          p.daycare_url ?? null,
          p.cd_balance,
        ],
      );
      out.policies[p.policy_number] = row!.id;
    }
    for (const e of data.employees) {
      const { id, created } = await createOrFindEmployee(scope, newEmployeeFromRequest(e));
      out.employees[e.employee_id] = id;
      if (!created) continue;
      for (const d of e.dependents) {
        await tx.execute(
          `insert into dependents (id, client_id, employee_id, name, relationship, date_of_birth, gender)
           values (?, ?, ?, ?, ?, ?, ?)`,
          [newId('dependent'), clientId, id, d.name, d.relationship, d.date_of_birth, storedGender(d.gender)],
        );
      }
    }
    return out;
  });
}
