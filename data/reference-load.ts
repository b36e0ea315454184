import { postCdEntry } from './cd-ledger.js';
import { toPaise } from '../domain/premium.js';
import type { EligibilityRules } from '../domain/dependent-eligibility.js';
import type { TenantScope } from './scope.js';

/**
 * Reference data (D12) written for one client by the load command. Every write is an upsert keyed by
 * (client, code) or (client, policy_number), so loading the same file again updates rows in place;
 * dependents are inserted only for employees the load created. All run in the caller's transaction.
 */

export interface InsurerRow {
  id: string;
  code: string;
  name: string;
  logoUrl: string;
  networkHospitalUrl: string | null;
  daycareUrl: string | null;
  adapter: string;
  /** Validated by the load file's schema; stored as given, defaults filled in. */
  adapterSettings: object;
}

export interface ProductRow {
  id: string;
  insurerId: string;
  code: string;
  name: string;
  category: string;
}

export interface PolicyRow {
  id: string;
  policyNumber: string;
  insurerId: string;
  productId: string;
  tpaId: string;
  netPremium: string;
  grossPremium: string;
  coverageType: string;
  type: string;
  status: string;
  startDate: string;
  endDate: string;
  slabs: { sum_insured: string; annual_premium: string }[];
  defaultSumInsured: string;
  inclusions: string;
  exclusions: string;
  termsConditions: string;
  policyDocumentUrl: string;
  networkHospitalUrl: string | null;
  daycareUrl: string | null;
  cdBalance: string;
  /** The low-balance threshold; null keeps the policy's (the default, 10 % of the gross premium, at first). */
  cdLowThreshold: string | null;
  /** D16: the policy's overrides of the dependent eligibility defaults (validated by the load file). */
  eligibility: Partial<EligibilityRules>;
}

export interface DependentRow {
  id: string;
  employeeId: string;
  name: string;
  relationship: string;
  dateOfBirth: string;
  gender: string;
}

/** Whether the scope's client exists (a load names it on the command line). */
export async function clientIsKnown(tx: TenantScope): Promise<boolean> {
  return (await tx.sql('select 1 from clients where id = ?', [tx.clientId])).length > 0;
}

/** Returns the id kept: the existing row's when the code was loaded before. */
export async function upsertInsurer(tx: TenantScope, i: InsurerRow): Promise<string> {
  const [row] = await tx.sql<{ id: string }>(
    `insert into insurers (id, client_id, code, name, logo_url, network_hospital_url, daycare_url, adapter,
       adapter_settings)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb)
     on conflict (client_id, code) do update set name = excluded.name, logo_url = excluded.logo_url,
       network_hospital_url = excluded.network_hospital_url, daycare_url = excluded.daycare_url,
       adapter = excluded.adapter, adapter_settings = excluded.adapter_settings
     returning id`,
    [
      i.id,
      tx.clientId,
      i.code,
      i.name,
      i.logoUrl,
      i.networkHospitalUrl,
      i.daycareUrl,
      i.adapter,
      JSON.stringify(i.adapterSettings),
    ],
  );
  return row!.id;
}

export async function upsertTpa(
  tx: TenantScope,
  t: { id: string; code: string; name: string },
): Promise<string> {
  const [row] = await tx.sql<{ id: string }>(
    `insert into tpas (id, client_id, code, name) values (?, ?, ?, ?)
     on conflict (client_id, code) do update set name = excluded.name returning id`,
    [t.id, tx.clientId, t.code, t.name],
  );
  return row!.id;
}

export async function upsertProduct(tx: TenantScope, p: ProductRow): Promise<string> {
  const [row] = await tx.sql<{ id: string }>(
    `insert into products (id, client_id, insurer_id, code, name, category) values (?, ?, ?, ?, ?, ?)
     on conflict (client_id, code) do update set name = excluded.name, category = excluded.category,
       insurer_id = excluded.insurer_id returning id`,
    [p.id, tx.clientId, p.insurerId, p.code, p.name, p.category],
  );
  return row!.id;
}

/**
 * A re-load updates the policy's status, slabs, dates and eligibility rules, and its low-balance threshold when the
 * file names one; premiums, texts and the CD balance keep their first values. The balance is the CD ledger's opening entry (an adjustment, reference
 * `opening-balance`), posted with the policy's insert only.
 */
export async function upsertPolicy(tx: TenantScope, p: PolicyRow): Promise<string> {
  const [row] = await tx.sql<{ id: string; inserted: boolean }>(
    `insert into policies (id, client_id, policy_number, insurer_id, product_id, tpa_id, net_premium, gross_premium,
       coverage_type, type, status, start_date, end_date, slabs, default_sum_insured, inclusions, exclusions,
       terms_conditions, policy_document_url, network_hospital_url, daycare_url, cd_balance, cd_low_threshold,
       eligibility)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?, ?, ?, ?, ?::numeric, ?::jsonb)
     on conflict (client_id, policy_number) do update set status = excluded.status, slabs = excluded.slabs,
       eligibility = excluded.eligibility,
       default_sum_insured = excluded.default_sum_insured, start_date = excluded.start_date, end_date = excluded.end_date,
       cd_low_threshold = coalesce(excluded.cd_low_threshold, policies.cd_low_threshold)
     returning id, xmax = 0 as inserted`,
    [
      p.id,
      tx.clientId,
      p.policyNumber,
      p.insurerId,
      p.productId,
      p.tpaId,
      p.netPremium,
      p.grossPremium,
      p.coverageType,
      p.type,
      p.status,
      p.startDate,
      p.endDate,
      JSON.stringify(p.slabs),
      p.defaultSumInsured,
      p.inclusions,
      p.exclusions,
      p.termsConditions,
      p.policyDocumentUrl,
      p.networkHospitalUrl,
      p.daycareUrl,
      '0',
      p.cdLowThreshold,
      JSON.stringify(p.eligibility),
    ],
  );
  if (!row!.inserted) return row!.id;
  await postCdEntry(tx, {
    policyId: row!.id,
    kind: 'adjustment',
    reference: 'opening-balance',
    amount: toPaise(p.cdBalance),
    held: 0n,
    guarded: false,
    reason: 'opening balance',
  });
  return row!.id;
}

export async function insertDependent(tx: TenantScope, d: DependentRow): Promise<void> {
  await tx.sql(
    `insert into dependents (id, client_id, employee_id, name, relationship, date_of_birth, gender)
     values (?, ?, ?, ?, ?, ?, ?)`,
    [d.id, tx.clientId, d.employeeId, d.name, d.relationship, d.dateOfBirth, d.gender],
  );
}
