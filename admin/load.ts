import type { EntityManager } from '@mikro-orm/postgresql';
import {
  clientIsKnown,
  insertDependent,
  upsertInsurer,
  upsertPolicy,
  upsertProduct,
  upsertTpa,
} from '../data/reference-load.js';
import { MissingTenant, TenantScope } from '../data/scope.js';
import { createOrFindEmployee } from '../data/employees.js';
import { newId } from '../domain/ids.js';
import { newEmployeeFromRequest, storedGender } from '../domain/schemas/employees.js';
import { AdminError } from './clients.js';
import type { LoadFile } from './load-schema.js';

export interface LoadResult {
  insurers: Record<string, string>;
  tpas: Record<string, string>;
  products: Record<string, string>;
  policies: Record<string, string>;
  employees: Record<string, string>;
}

type Ids = Record<string, string>;

/** The id a file's code was loaded under; a code the file does not define is the operator's mistake. */
const need = (map: Ids, code: string, what: string) => {
  const id = map[code];
  if (!id) throw new AdminError(`${what} "${code}" is not defined in the file`);
  return id;
};

function clientScope(em: EntityManager, clientId: string): TenantScope {
  try {
    return TenantScope.of(em, clientId);
  } catch (err) {
    throw err instanceof MissingTenant ? new AdminError(`no client ${clientId}`) : err;
  }
}

/**
 * Loads reference data for one client in one transaction (all or nothing). Re-loading the same file is
 * safe: rows are keyed by (client, code) / (client, policy_number) and updated in place; employees are
 * created once (createOrFindEmployee), and their dependents only when the load created them.
 */
export async function loadReferenceData(
  em: EntityManager,
  clientId: string,
  data: LoadFile,
): Promise<LoadResult> {
  return clientScope(em, clientId).transaction(async (tx) => {
    if (!(await clientIsKnown(tx))) throw new AdminError(`no client ${clientId}`);
    const out: LoadResult = { insurers: {}, tpas: {}, products: {}, policies: {}, employees: {} };
    await loadInsurersAndProducts(tx, data, out);
    await loadPolicies(tx, data, out);
    await loadEmployees(tx, data, out);
    return out;
  });
}

async function loadInsurersAndProducts(tx: TenantScope, data: LoadFile, out: LoadResult): Promise<void> {
  for (const i of data.insurers) {
    out.insurers[i.code] = await upsertInsurer(tx, {
      id: newId('insurer'),
      code: i.code,
      name: i.name,
      logoUrl: i.logo_url,
      networkHospitalUrl: i.network_hospital_url ?? null,
      daycareUrl: i.daycare_url ?? null,
      adapter: i.adapter,
      adapterSettings: i.adapter_settings,
    });
  }
  for (const t of data.tpas) {
    out.tpas[t.code] = await upsertTpa(tx, { id: newId('tpa'), code: t.code, name: t.name });
  }
  for (const p of data.products) {
    out.products[p.code] = await upsertProduct(tx, {
      id: newId('product'),
      insurerId: need(out.insurers, p.insurer, 'insurer'),
      code: p.code,
      name: p.name,
      category: p.category,
    });
  }
}

async function loadPolicies(tx: TenantScope, data: LoadFile, out: LoadResult): Promise<void> {
  for (const p of data.policies) {
    const slabs = p.slabs.map((s) => ({ sum_insured: s.sum_insured, annual_premium: s.annual_premium }));
    out.policies[p.policy_number] = await upsertPolicy(tx, {
      id: newId('policy'),
      policyNumber: p.policy_number,
      insurerId: need(out.insurers, p.insurer, 'insurer'),
      productId: need(out.products, p.product, 'product'),
      tpaId: need(out.tpas, p.tpa, 'tpa'),
      netPremium: p.net_premium,
      grossPremium: p.gross_premium,
      coverageType: p.coverage_type,
      type: p.type,
      status: p.status,
      startDate: p.start_date,
      endDate: p.end_date,
      slabs,
      defaultSumInsured: p.default_sum_insured ?? slabs[0]!.sum_insured,
      inclusions: p.inclusions,
      exclusions: p.exclusions,
      termsConditions: p.terms_conditions,
      policyDocumentUrl: p.policy_document_url,
      networkHospitalUrl: p.network_hospital_url ?? null,
      daycareUrl: p.daycare_url ?? null,
      cdBalance: p.cd_balance,
      cdLowThreshold: p.cd_low_threshold ?? null,
      eligibility: p.eligibility,
    });
  }
}

async function loadEmployees(tx: TenantScope, data: LoadFile, out: LoadResult): Promise<void> {
  for (const e of data.employees) {
    const { id, created } = await createOrFindEmployee(tx, newEmployeeFromRequest(e));
    out.employees[e.employee_id] = id;
    if (!created) continue;
    for (const d of e.dependents) {
      await insertDependent(tx, {
        id: newId('dependent'),
        employeeId: id,
        name: d.name,
        relationship: d.relationship,
        dateOfBirth: d.date_of_birth,
        gender: storedGender(d.gender),
      });
    }
  }
}
