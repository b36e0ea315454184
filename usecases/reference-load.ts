import type { EntityManager } from '@mikro-orm/postgresql';
import {
  clientIsKnown,
  insertDependent,
  partnerIds,
  upsertPolicy,
  writePartner,
  type PartnerKind,
} from '../data/reference-load.js';
import { MissingTenant, SystemScope, TenantScope } from '../data/scope.js';
import { createOrFindEmployee } from '../data/employees.js';
import { newId } from '../domain/ids.js';
import { newEmployeeFromRequest, storedGender } from '../domain/schemas/employees.js';
import { OperatorRefusal } from '../domain/operator-refusal.js';
import type { LoadFile } from '../domain/schemas/reference-load.js';

export interface LoadResult {
  insurers: Record<string, string>;
  tpas: Record<string, string>;
  products: Record<string, string>;
  policies: Record<string, string>;
  employees: Record<string, string>;
}

type Ids = Record<string, string>;

/** The id a code is loaded under; a code neither the file nor the platform defines is the operator's mistake. */
const need = (map: Ids, code: string, what: string) => {
  const id = map[code];
  if (!id) {
    throw new OperatorRefusal(
      `${what} "${code}" is not defined in the file nor loaded as a partner (admin load PARTNERS_FILE)`,
    );
  }
  return id;
};

function clientScope(em: EntityManager, clientId: string): TenantScope {
  try {
    return TenantScope.of(em, clientId);
  } catch (err) {
    throw err instanceof MissingTenant ? new OperatorRefusal(`no client ${clientId}`) : err;
  }
}

/**
 * D12 (amended): loads the platform's partners (insurers, TPAs, products), one row per code, in one
 * transaction. A partner loaded before is updated in place to the file's values (this is how an
 * insurer's adapter settings change, for every client at once); re-loading the same file changes
 * nothing. A partners file holds nothing else: policies and employees belong to a client.
 */
export async function loadPartners(em: EntityManager, data: LoadFile): Promise<LoadResult> {
  if (data.policies.length > 0 || data.employees.length > 0) {
    throw new OperatorRefusal('policies and employees belong to a client: add --client CLIENT_ID');
  }
  return SystemScope.of(em).transaction(async (system) => {
    const out: LoadResult = { insurers: {}, tpas: {}, products: {}, policies: {}, employees: {} };
    await loadInsurersAndProducts(system, data, out, true);
    return out;
  });
}

/**
 * Loads one client's reference data in one transaction (all or nothing). Its policies name partners
 * by code. For compatibility a client's file may still define partners: a code the platform does
 * not have yet is added; one it has must be identical, else the load is refused naming the code and
 * what differs (a partner changes for every client at once, through a partners load). Re-loading the
 * same file is safe: rows are keyed by code / (client, policy_number) and updated in place; employees
 * are created once (createOrFindEmployee), and their dependents only when the load created them.
 */
export async function loadReferenceData(
  em: EntityManager,
  clientId: string,
  data: LoadFile,
): Promise<LoadResult> {
  clientScope(em, clientId);
  return SystemScope.of(em).transaction(async (system) => {
    const tx = TenantScope.of(system.em, clientId);
    if (!(await clientIsKnown(tx))) throw new OperatorRefusal(`no client ${clientId}`);
    const out: LoadResult = { insurers: {}, tpas: {}, products: {}, policies: {}, employees: {} };
    await loadInsurersAndProducts(system, data, out, false);
    await namedPartners(system, data, out);
    await loadPolicies(tx, data, out);
    await loadEmployees(tx, data, out);
    return out;
  });
}

/** Writes the file's partners; `update`: a partners load (else a client's file, which must not change them). */
async function loadInsurersAndProducts(
  system: SystemScope,
  data: LoadFile,
  out: LoadResult,
  update: boolean,
): Promise<void> {
  const write = async (kind: PartnerKind, row: Parameters<typeof writePartner>[2]) => {
    const { id, differs } = await writePartner(system, kind, row, update);
    if (differs.length > 0) {
      throw new OperatorRefusal(
        `${kind} "${row.code}" is loaded with other values (${differs.join(', ')}); a client's file may ` +
          'repeat a partner only unchanged: change it for every client with a partners load',
      );
    }
    return id;
  };
  for (const i of data.insurers) {
    out.insurers[i.code] = await write('insurer', {
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
    out.tpas[t.code] = await write('tpa', { id: newId('tpa'), code: t.code, name: t.name });
  }
  const insurers = {
    ...(await partnerIds(
      system,
      'insurer',
      data.products.map((p) => p.insurer),
    )),
    ...out.insurers,
  };
  for (const p of data.products) {
    out.products[p.code] = await write('product', {
      id: newId('product'),
      insurerId: need(insurers, p.insurer, 'insurer'),
      code: p.code,
      name: p.name,
      category: p.category,
    });
  }
}

/** The partners the file's policies name without defining them: the platform's rows of those codes. */
async function namedPartners(system: SystemScope, data: LoadFile, out: LoadResult): Promise<void> {
  const kinds = [
    ['insurer', out.insurers, (p) => p.insurer],
    ['product', out.products, (p) => p.product],
    ['tpa', out.tpas, (p) => p.tpa],
  ] as const satisfies readonly [string, Ids, (p: LoadFile['policies'][number]) => string][];
  for (const [kind, defined, pick] of kinds) {
    const named = [...new Set(data.policies.map(pick))].filter((code) => !defined[code]);
    Object.assign(defined, await partnerIds(system, kind, named));
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
