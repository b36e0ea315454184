import { postCdEntry } from './cd-account/ledger.js';
import { toPaise } from '../domain/premium.js';
import type { EligibilityRules } from '../domain/dependents/eligibility.js';
import type { SystemScope, TenantScope } from './scope.js';

/**
 * Reference data (D12) written by the load command. The platform's partners (insurers, TPAs,
 * products) are one row per code, written with the system setting (row-level security lets no
 * tenant write them); a client's policies, employees and dependents are its own. Every write is an
 * upsert keyed by code or (client, policy_number), so loading the same file again updates rows in
 * place; dependents are inserted only for employees the load created. All run in the caller's
 * transaction.
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

/** A partner's code and the id it is loaded under. */
export type PartnerKind = 'insurer' | 'tpa' | 'product';

export interface TpaRow {
  id: string;
  code: string;
  name: string;
}

/**
 * The partners' rows as written: the columns compared when a client's file repeats a partner, in
 * the load file's spelling (an insurer's `adapter_settings` compared as jsonb, so key order is
 * immaterial).
 */
const PARTNER_COLUMNS: Record<PartnerKind, { table: string; columns: [string, string][] }> = {
  insurer: {
    table: 'insurers',
    columns: [
      ['name', 'text'],
      ['logo_url', 'text'],
      ['network_hospital_url', 'text'],
      ['daycare_url', 'text'],
      ['adapter', 'text'],
      ['adapter_settings', 'jsonb'],
    ],
  },
  tpa: { table: 'tpas', columns: [['name', 'text']] },
  product: {
    table: 'products',
    columns: [
      ['name', 'text'],
      ['category', 'text'],
      ['insurer_id', 'text'],
    ],
  },
};

const partnerValues = (kind: PartnerKind, row: InsurerRow | TpaRow | ProductRow): unknown[] => {
  if (kind === 'insurer') {
    const i = row as InsurerRow;
    return [
      i.name,
      i.logoUrl,
      i.networkHospitalUrl,
      i.daycareUrl,
      i.adapter,
      JSON.stringify(i.adapterSettings),
    ];
  }
  if (kind === 'tpa') return [row.name];
  const p = row as ProductRow;
  return [p.name, p.category, p.insurerId];
};

/**
 * Writes a partner (one platform row per code): a new code is inserted; a known one is updated in
 * place when `update`, else left as it is. Returns the id its code is loaded under and, for a known
 * code left as it is, the columns the given row differs in (empty: identical). Concurrency: the
 * insert is `on conflict (code) do nothing` followed by a read, so two loads adding one code at once
 * keep one row and compare against it.
 */
export async function writePartner(
  system: SystemScope,
  kind: PartnerKind,
  row: InsurerRow | TpaRow | ProductRow,
  update: boolean,
): Promise<{ id: string; differs: string[] }> {
  const { table, columns } = PARTNER_COLUMNS[kind];
  const values = partnerValues(kind, row);
  const names = columns.map(([c]) => c);
  const casts = columns.map(([, type]) => `?::${type}`);
  const conflict = update
    ? `do update set ${names.map((c) => `${c} = excluded.${c}`).join(', ')}`
    : 'do nothing';
  await system.sql(
    `insert into ${table} (id, code, ${names.join(', ')}) values (?, ?, ${casts.join(', ')})
     on conflict (code) ${conflict}`,
    [row.id, row.code, ...values],
  );
  const [stored] = await system.sql<{ id: string; differs: string[] }>(
    `select id, array_remove(array[${columns
      .map(([c, type]) => `case when ${c} is distinct from ?::${type} then '${c}' end`)
      .join(', ')}], null) as differs
       from ${table} where code = ?`,
    [...values, row.code],
  );
  return stored!;
}

/** The ids of the partners of these codes (a client's file names them by code). */
export async function partnerIds(system: SystemScope, kind: PartnerKind, codes: readonly string[]) {
  if (codes.length === 0) return {};
  const rows = await system.sql<{ id: string; code: string }>(
    `select id, code from ${PARTNER_COLUMNS[kind].table} where code in (?)`,
    [codes],
  );
  return Object.fromEntries(rows.map((r) => [r.code, r.id])) as Record<string, string>;
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
