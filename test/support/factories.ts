import { randomBytes } from 'node:crypto';
import { createClient } from '../../usecases/clients.js';
import { createInsurerClient } from '../../usecases/insurer-exchange/principals.js';
import { createTokenService } from '../../api/auth/tokens.js';
import { systemClock, type Clock } from '../../domain/clock.js';
import { createOrFindEmployee } from '../../data/employees.js';
import { TenantScope } from '../../data/scope.js';
import type { NewEmployee } from '../../domain/employees.js';
import type {
  CoverageType,
  EndorsementStatus,
  EndorsementType,
  Gender,
  InsurerAdapterName,
  PolicyStatus,
  PolicyType,
  Relationship,
} from '../../domain/enums.js';
import { newId } from '../../domain/ids.js';
import { INSURER_SCOPES, SCOPES, type ClientScope, type Scope } from '../../domain/scopes.js';
import { stack } from './stack.js';

/** Small builders for test data, written straight to the run's database. */
const unique = () => randomBytes(4).toString('hex');

const sql = (query: string, params: unknown[] = []): Promise<any[]> =>
  stack().orm.em.getConnection().execute(query, params);

export interface TestClient {
  clientId: string;
  clientSecret: string;
  /** A valid token for this client with the given scopes (default: all). */
  token(scopes?: readonly Scope[], clock?: Clock): string;
}

export async function makeClient(opts: { name?: string; scopes?: ClientScope[] } = {}): Promise<TestClient> {
  const { client_id, client_secret } = await createClient(
    stack().orm.em.fork(),
    opts.name ?? `Client ${unique()}`,
    opts.scopes ?? [...SCOPES],
  );
  const cfg = stack().config;
  return {
    clientId: client_id,
    clientSecret: client_secret,
    token: (scopes = SCOPES, clock = systemClock) =>
      createTokenService({
        keys: cfg.JWT_SIGNING_KEYS,
        issuer: cfg.JWT_ISSUER,
        audience: cfg.JWT_AUDIENCE,
        clock,
      }).issue(client_id, scopes, 1),
  };
}

export interface ReferenceData {
  insurerId: string;
  tpaId: string;
  productId: string;
}

/**
 * An insurer (with a new TPA and a new product of it): platform partners (D12), one row per code.
 * A fresh code unless `code` names one: then the insurer of that code, made by the first call with
 * it (its settings are the first call's), so two clients' policies can share their insurer.
 * `_clientId` names the client the test means them for; partners belong to no client.
 */
export async function makeReferenceData(
  _clientId: string,
  opts: {
    code?: string;
    insurerName?: string;
    category?: string;
    adapter?: InsurerAdapterName;
    adapterSettings?: Record<string, unknown>;
  } = {},
): Promise<ReferenceData> {
  const tpaId = newId('tpa');
  const productId = newId('product');
  const [{ id: insurerId }] = await sql(
    `insert into insurers (id, code, name, logo_url, network_hospital_url, daycare_url, adapter, adapter_settings)
     values (?, ?, ?, ?, ?, ?, ?, ?::jsonb)
     on conflict (code) do update set code = excluded.code returning id`,
    [
      newId('insurer'),
      opts.code ?? `INS-${unique()}`,
      opts.insurerName ?? 'Star Health',
      'https://logo.example.com/i.png',
      'https://net.example.com',
      'https://daycare.example.com',
      opts.adapter ?? 'manual',
      JSON.stringify(opts.adapterSettings ?? {}),
    ],
  );
  await sql('insert into tpas (id, code, name) values (?, ?, ?)', [tpaId, `TPA-${unique()}`, 'Medi Assist']);
  await sql('insert into products (id, insurer_id, code, name, category) values (?, ?, ?, ?, ?)', [
    productId,
    insurerId,
    `PRD-${unique()}`,
    'Group Care',
    opts.category ?? 'Group Health',
  ]);
  return { insurerId, tpaId, productId };
}

export interface PolicyOverrides {
  policyNumber?: string;
  status?: PolicyStatus;
  type?: PolicyType;
  coverageType?: CoverageType;
  startDate?: string;
  endDate?: string;
  slabs?: { sum_insured: string; annual_premium: string }[];
  defaultSumInsured?: string;
  cdBalance?: string;
  /** The low-balance threshold (default: 10 % of the gross premium, 118000.00 here). */
  cdLowThreshold?: string;
  reference?: ReferenceData;
}

export async function makePolicy(
  clientId: string,
  o: PolicyOverrides = {},
): Promise<{ id: string; policyNumber: string } & ReferenceData> {
  const ref = o.reference ?? (await makeReferenceData(clientId));
  const id = newId('policy');
  const policyNumber = o.policyNumber ?? `POL/${unique()}`;
  const slabs = o.slabs ?? [
    { sum_insured: '300000.00', annual_premium: '3650.00' },
    { sum_insured: '500000.00', annual_premium: '7300.00' },
  ];
  await sql(
    `insert into policies (id, client_id, policy_number, insurer_id, product_id, tpa_id, net_premium, gross_premium,
       coverage_type, type, status, start_date, end_date, slabs, default_sum_insured, inclusions, exclusions,
       terms_conditions, policy_document_url, network_hospital_url, daycare_url, cd_balance, cd_entries,
       cd_low_threshold)
     values (?, ?, ?, ?, ?, ?, 100000, 118000, ?, ?, ?, ?, ?, ?::jsonb, ?, 'Hospitalisation', 'Cosmetic', 'Terms', 'https://doc.example.com/p.pdf', 'https://net.example.com', 'https://daycare.example.com', ?, 1, ?)`,
    [
      id,
      clientId,
      policyNumber,
      ref.insurerId,
      ref.productId,
      ref.tpaId,
      o.coverageType ?? 'COVERAGE_TYPE_ESC',
      o.type ?? 'POLICY_TYPE_FAMILY_FLOATER',
      o.status ?? 'POLICY_STATUS_ACTIVE',
      o.startDate ?? '2026-04-01',
      o.endDate ?? '2027-03-31',
      JSON.stringify(slabs),
      o.defaultSumInsured ?? slabs[0]!.sum_insured,
      o.cdBalance ?? '1000000.00',
      o.cdLowThreshold ?? null,
    ],
  );
  // The opening balance is the ledger's first entry, as a load writes it.
  await sql(
    `insert into cd_ledger_entries (id, client_id, policy_id, kind, amount, balance_after, reference, seq, reason)
     values (?, ?, ?, 'adjustment', ?, ?, 'opening-balance', 1, 'opening balance')`,
    [newId('ledger'), clientId, id, o.cdBalance ?? '1000000.00', o.cdBalance ?? '1000000.00'],
  );
  return { id, policyNumber, ...ref };
}

export async function makeEmployee(
  clientId: string,
  o: Partial<NewEmployee> = {},
): Promise<{ id: string } & NewEmployee> {
  const tag = unique();
  const input: NewEmployee = {
    employeeCode: `E-${tag}`,
    name: `Employee ${tag}`,
    email: `employee.${tag}@example.com`,
    phoneNumber: '+919800000000',
    dateOfBirth: '1990-05-17',
    gender: 'FEMALE',
    status: 'ACTIVE',
    ...o,
  };
  const { id } = await createOrFindEmployee(TenantScope.of(stack().orm.em, clientId), input);
  return { id, ...input };
}

export async function makeDependent(
  clientId: string,
  employeeId: string,
  o: { name?: string; relationship?: Relationship; dateOfBirth?: string; gender?: Gender } = {},
): Promise<{ id: string }> {
  const id = newId('dependent');
  await sql(
    'insert into dependents (id, client_id, employee_id, name, relationship, date_of_birth, gender) values (?, ?, ?, ?, ?, ?, ?)',
    [
      id,
      clientId,
      employeeId,
      o.name ?? `Dependent ${unique()}`,
      o.relationship ?? 'SPOUSE',
      o.dateOfBirth ?? '1991-01-01',
      o.gender ?? 'MALE',
    ],
  );
  return { id };
}

export async function makeMember(
  clientId: string,
  policyId: string,
  employee: { id: string; name: string },
  o: {
    dependentId?: string;
    status?: 'active' | 'inactive' | 'suspended';
    start?: string;
    end?: string;
    sumInsured?: string;
    uhid?: string;
  } = {},
): Promise<{ id: string }> {
  const id = newId('member');
  await sql(
    `insert into policy_members (id, client_id, policy_id, employee_id, dependent_id, coverage_start_date, coverage_end_date,
       premium_amount, sum_insured, remaining_sum_insured, status, employee_name, member_rank, uhid)
     values (?, ?, ?, ?, ?, ?, ?, 1000, ?, ?, ?, ?, ?, ?)`,
    [
      id,
      clientId,
      policyId,
      employee.id,
      o.dependentId ?? null,
      o.start ?? '2026-04-01',
      o.end ?? '2027-03-31',
      o.sumInsured ?? '300000.00',
      o.sumInsured ?? '300000.00',
      o.status ?? 'active',
      employee.name,
      o.dependentId ? 1 : 0,
      o.uhid ?? null,
    ],
  );
  return { id };
}

export interface EndorsementRow {
  /** Default: a new employee of the client. */
  employeeId?: string;
  dependentId?: string;
  /** Default: an ADDITION, PENDING (as a create leaves it). */
  type?: EndorsementType;
  status?: EndorsementStatus;
  start?: string;
  end?: string;
  /** Rupees, as the column takes them; default 0. */
  premium?: string;
  sumInsured?: string;
  /** The timestamps a test sets; the others keep the table's own (null, or now for created_at). */
  createdAt?: Date;
  decidedAt?: Date;
  cutOffQueuedAt?: Date | null;
  workflowStartedAt?: Date;
}

/**
 * An endorsement row written straight to the table (no workflow), for a test that needs one in a
 * given state; returns its id.
 */
export async function makeEndorsement(
  clientId: string,
  policyId: string,
  o: EndorsementRow = {},
): Promise<string> {
  const id = newId('endorsement');
  const columns: Record<string, unknown> = {
    id,
    client_id: clientId,
    policy_id: policyId,
    employee_id: o.employeeId ?? (await makeEmployee(clientId)).id,
    dependent_id: o.dependentId ?? null,
    type: o.type ?? 'ENDORSEMENT_TYPE_ADDITION',
    status: o.status ?? 'ENDORSEMENT_STATUS_PENDING',
    coverage_start_date: o.start ?? '2026-04-01',
    coverage_end_date: o.end ?? '2027-03-31',
    premium_impact: o.premium ?? '0.00',
    sum_insured: o.sumInsured ?? '300000.00',
  };
  const timestamps = {
    created_at: o.createdAt,
    decided_at: o.decidedAt,
    cut_off_queued_at: o.cutOffQueuedAt,
    workflow_started_at: o.workflowStartedAt,
  };
  for (const [column, value] of Object.entries(timestamps)) if (value !== undefined) columns[column] = value;
  const names = Object.keys(columns);
  await sql(
    `insert into endorsements (${names.join(', ')}) values (${names.map(() => '?').join(', ')})`,
    Object.values(columns),
  );
  return id;
}

export { sql };

export interface TestInsurerClient {
  principalId: string;
  secret: string;
  insurerId: string;
  /** A valid token of this insurer principal (both insurer scopes unless told otherwise). */
  token(scopes?: readonly Scope[], clock?: Clock): string;
}

/** An insurer principal (D14) for the insurer `insurerId`, as the admin command makes one. */
export async function makeInsurerClient(insurerId: string): Promise<TestInsurerClient> {
  const [row] = await sql('select code from insurers where id = ?', [insurerId]);
  const made = await createInsurerClient(stack().orm.em.fork(), row.code);
  const cfg = stack().config;
  return {
    principalId: made.client_id,
    secret: made.client_secret,
    insurerId,
    token: (scopes = INSURER_SCOPES, clock = systemClock) =>
      createTokenService({
        keys: cfg.JWT_SIGNING_KEYS,
        issuer: cfg.JWT_ISSUER,
        audience: cfg.JWT_AUDIENCE,
        clock,
      }).issue(made.client_id, scopes, 1),
  };
}
