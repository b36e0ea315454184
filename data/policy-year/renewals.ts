import type { InsurerAdapterName } from '../../domain/enums.js';
import type { EventType } from '../../domain/webhooks/events.js';
import { newId } from '../../domain/ids.js';
import type { RenewalCandidate, RenewalDraft, RenewalStatus } from '../../domain/policy-year/renewal.js';
import type { Slab } from '../../domain/premium.js';
import { toPaise } from '../../domain/premium.js';
import { lockPolicyCd, postCdEntry } from '../cd-account/ledger.js';
import { isoSql, outboxSql } from '../webhooks/outbox.js';
import type { SystemScope, TenantScope } from '../scope.js';

/** A renewal row with what its draft needs of the current term. */
export interface RenewalRow {
  id: string;
  client_id: string;
  policy_id: string;
  term_start: string;
  term_end: string;
  status: RenewalStatus;
  quote: Record<string, unknown> | null;
  decided_by: string | null;
  decided_at: string | null;
  submitted_at: string | null;
  new_policy_id: string | null;
  completed_at: string | null;
  created_at: string;
}

export interface RenewalPolicy {
  id: string;
  client_id: string;
  policy_number: string;
  status: string;
  start_date: string;
  end_date: string;
  slabs: Slab[];
  default_sum_insured: string;
  eligibility: Record<string, unknown>;
  cd_balance: string;
  cd_held: string;
  renewed_from: string | null;
  insurer_id: string;
}

const RENEWAL_COLUMNS = `r.id, r.client_id, r.policy_id, r.term_start::text as term_start, r.term_end::text as term_end,
  r.status, r.quote, r.decided_by, ${isoSql('r.decided_at')} as decided_at,
  ${isoSql('r.submitted_at')} as submitted_at, r.new_policy_id, ${isoSql('r.completed_at')} as completed_at,
  ${isoSql('r.created_at')} as created_at`;

const POLICY_COLUMNS = `p.id, p.client_id, p.policy_number, p.status, p.start_date::text as start_date,
  p.end_date::text as end_date, p.slabs, p.default_sum_insured::text as default_sum_insured, p.eligibility,
  p.cd_balance::text as cd_balance, p.cd_held::text as cd_held, p.renewed_from, p.insurer_id`;

export async function findRenewalPolicy(
  scope: TenantScope,
  policyId: string,
): Promise<RenewalPolicy | undefined> {
  const [row] = await scope.sql<RenewalPolicy>(
    `select ${POLICY_COLUMNS} from policies p where p.client_id = ? and p.id = ?`,
    [scope.clientId, policyId],
  );
  return row;
}

/** The renewal of the policy's term, if one was opened. */
export async function latestRenewal(scope: TenantScope, policyId: string): Promise<RenewalRow | undefined> {
  const [row] = await scope.sql<RenewalRow>(
    `select ${RENEWAL_COLUMNS} from policy_renewals r
      where r.client_id = ? and r.policy_id = ? limit 1`,
    [scope.clientId, policyId],
  );
  return row;
}

export async function findRenewal(scope: TenantScope, renewalId: string): Promise<RenewalRow | undefined> {
  const [row] = await scope.sql<RenewalRow>(
    `select ${RENEWAL_COLUMNS} from policy_renewals r where r.client_id = ? and r.id = ?`,
    [scope.clientId, renewalId],
  );
  return row;
}

/**
 * Opens the renewal of the policy's term, once: the unique policy_id (a policy row is one term)
 * makes a second open (a retried activity, the daily pass racing an operator's start) find the first
 * and record nothing. The first open records `policy.renewal_drafted` in the same statement.
 * Returns the row and the deliveries to start.
 */
export async function openRenewal(
  scope: TenantScope,
  r: { policyId: string; termStart: string; termEnd: string; quote: Record<string, unknown> | null },
): Promise<{ renewal: RenewalRow; deliveries: string[] }> {
  const outbox = outboxSql('opened', 'policy.renewal_drafted');
  const rows = await scope.sql<{ id: string }>(
    `with opened as (
       insert into policy_renewals (id, client_id, policy_id, term_start, term_end, status, quote)
       values (?, ?, ?, ?, ?, 'DRAFT', ?::jsonb)
       on conflict (policy_id) do nothing
       returning client_id, id as entity_id, status as to_status,
         jsonb_build_object('renewal_id', id, 'policy_id', policy_id, 'status', status,
           'term_start', term_start::text, 'term_end', term_end::text) as data),
     ${outbox.sql}
     select id from outbox_deliveries`,
    [
      newId('renewal'),
      scope.clientId,
      r.policyId,
      r.termStart,
      r.termEnd,
      r.quote === null ? null : JSON.stringify(r.quote),
      ...outbox.params,
    ],
  );
  const [renewal] = await scope.sql<RenewalRow>(
    `select ${RENEWAL_COLUMNS} from policy_renewals r where r.client_id = ? and r.policy_id = ?`,
    [scope.clientId, r.policyId],
  );
  return { renewal: renewal!, deliveries: rows.map((d) => d.id) };
}

/** The insurer's quote replaces the one loaded before, while the renewal is still a DRAFT. */
export async function setRenewalQuote(
  scope: TenantScope,
  renewalId: string,
  quote: Record<string, unknown>,
  term: { termStart: string; termEnd: string },
): Promise<boolean> {
  const rows = await scope.sql<{ id: string }>(
    `update policy_renewals set quote = ?::jsonb, term_start = ?, term_end = ?
      where client_id = ? and id = ? and status = 'DRAFT' returning id`,
    [JSON.stringify(quote), term.termStart, term.termEnd, scope.clientId, renewalId],
  );
  return rows.length === 1;
}

const EVENT_OF: Record<'CONFIRMED' | 'DECLINED' | 'RENEWED' | 'EXPIRED', EventType> = {
  CONFIRMED: 'policy.renewal_confirmed',
  DECLINED: 'policy.renewal_declined',
  RENEWED: 'policy.renewed',
  EXPIRED: 'policy.expired',
};

/**
 * Moves the renewal from one of `from` to `to` in one statement, with its event. Concurrency: HR's
 * confirm, HR's decline and the workflow's own confirmation race on the row; the update re-checks the
 * status on the latest row version, so exactly one wins and the others find it moved. Returns the
 * deliveries, or null when the row was not in `from` (the caller reads what it is instead).
 */
export async function moveRenewal(
  scope: TenantScope,
  renewalId: string,
  from: readonly RenewalStatus[],
  to: 'CONFIRMED' | 'DECLINED' | 'RENEWED' | 'EXPIRED',
  extra: { decidedBy?: string; newPolicyId?: string } = {},
): Promise<string[] | null> {
  const outbox = outboxSql('moved', EVENT_OF[to]);
  const deciding = to === 'CONFIRMED' || to === 'DECLINED';
  const rows = await scope.sql<{ moved: string | null; id: string | null }>(
    `with moved as (
       update policy_renewals r
          set status = ?,
              decided_by = case when ?::boolean then ? else r.decided_by end,
              decided_at = case when ?::boolean then now() else r.decided_at end,
              new_policy_id = coalesce(?, r.new_policy_id),
              completed_at = case when ?::boolean then r.completed_at else now() end
        where r.client_id = ? and r.id = ? and r.status = any (?::text[])
       returning r.client_id, r.id as entity_id, r.status as to_status,
         jsonb_build_object('renewal_id', r.id, 'policy_id', r.policy_id, 'status', r.status,
           'term_start', r.term_start::text, 'term_end', r.term_end::text, 'decided_by', r.decided_by,
           'new_policy_id', r.new_policy_id) as data),
     ${outbox.sql}
     select (select entity_id from moved) as moved, d.id from (select 1) one
       left join outbox_deliveries d on true`,
    [
      to,
      deciding,
      extra.decidedBy ?? null,
      deciding,
      extra.newPolicyId ?? null,
      deciding,
      scope.clientId,
      renewalId,
      `{${from.join(',')}}`,
      ...outbox.params,
    ],
  );
  if (rows[0]?.moved == null) return null;
  return rows.filter((r) => r.id !== null).map((r) => r.id!);
}

export async function markRenewalSubmitted(scope: TenantScope, renewalId: string): Promise<void> {
  await scope.sql(
    `update policy_renewals set submitted_at = coalesce(submitted_at, now()) where client_id = ? and id = ?`,
    [scope.clientId, renewalId],
  );
}

/**
 * The current term's active members, with what the draft weighs: the employee's status, the
 * dependent's relationship and date of birth, the slab, the UHID. One statement, in member order.
 */
export async function renewalCandidates(scope: TenantScope, policyId: string): Promise<RenewalCandidate[]> {
  const rows = await scope.sql<{
    id: string;
    employee_id: string;
    employee_code: string;
    dependent_id: string | null;
    relationship: string | null;
    date_of_birth: string | null;
    employee_status: string;
    sum_insured: string | null;
    coverage_end_date: string;
    uhid: string | null;
    insurer_member_id: string | null;
  }>(
    `select m.id, m.employee_id, e.employee_code, m.dependent_id, d.relationship, coalesce(d.date_of_birth, e.date_of_birth)::text as date_of_birth,
            e.status as employee_status, m.sum_insured::text as sum_insured,
            m.coverage_end_date::text as coverage_end_date, m.uhid, m.insurer_member_id
       from policy_members m
       join employees e on e.client_id = m.client_id and e.id = m.employee_id
       left join dependents d on d.client_id = m.client_id and d.id = m.dependent_id
      where m.client_id = ? and m.policy_id = ? and m.status = 'active'
      order by m.employee_id, m.member_rank, m.id`,
    [scope.clientId, policyId],
  );
  return rows.map((r) => ({
    memberId: r.id,
    employeeId: r.employee_id,
    employeeCode: r.employee_code,
    dependentId: r.dependent_id,
    relationship: (r.relationship ?? null) as RenewalCandidate['relationship'],
    dateOfBirth: r.date_of_birth,
    employeeStatus: r.employee_status as RenewalCandidate['employeeStatus'],
    sumInsured: r.sum_insured,
    coverageEndDate: r.coverage_end_date,
    uhid: r.uhid,
    insurerMemberId: r.insurer_member_id,
  }));
}

/**
 * The new term as a policy of its own, in ONE transaction: the policy (the old one's columns, the
 * quote's terms on top, `renewed_from` naming the old one), its carried members (UHIDs and insurer
 * member ids kept) in one insert, the available CD balance moved by two entries that sum to zero (a
 * debit of the old policy, a credit of the new, each keyed by the renewal as its reference), the old
 * term INACTIVE and the renewal RENEWED with `policy.renewed`. Idempotent: a renewal already RENEWED
 * returns its policy; the unique `renewed_from` and the ledger references stop a racing second run.
 */
export async function completeRenewal(
  scope: TenantScope,
  renewal: RenewalRow,
  draft: RenewalDraft,
  quote: { policy_number?: string; net_premium?: string; gross_premium?: string } | null,
): Promise<{ newPolicyId: string; deliveries: string[] }> {
  return scope.transaction(async (tx) => {
    const [locked] = await tx.sql<{ status: string; new_policy_id: string | null }>(
      `select status, new_policy_id from policy_renewals where client_id = ? and id = ? for update`,
      [tx.clientId, renewal.id],
    );
    if (locked?.status === 'RENEWED') return { newPolicyId: locked.new_policy_id!, deliveries: [] };
    const newPolicyId = newId('policy');
    const terms = draft.terms;
    await tx.sql(
      `insert into policies (id, client_id, policy_number, insurer_id, product_id, tpa_id, net_premium, gross_premium,
         coverage_type, type, status, start_date, end_date, slabs, eligibility, default_sum_insured, inclusions,
         exclusions, terms_conditions, policy_document_url, network_hospital_url, daycare_url, cd_balance, cd_held,
         cd_entries, cd_low_threshold, renewed_from)
       select ?, p.client_id, coalesce(?, p.policy_number || '/R' || to_char(?::date, 'YYYY')), p.insurer_id,
              p.product_id, p.tpa_id, coalesce(?::numeric, p.net_premium), coalesce(?::numeric, p.gross_premium),
              p.coverage_type, p.type, 'POLICY_STATUS_ACTIVE', ?, ?, ?::jsonb, p.eligibility, ?, p.inclusions,
              p.exclusions, p.terms_conditions, p.policy_document_url, p.network_hospital_url, p.daycare_url, 0, 0, 0,
              p.cd_low_threshold, p.id
         from policies p where p.client_id = ? and p.id = ?`,
      [
        newPolicyId,
        quote?.policy_number ?? null,
        terms.term.startDate,
        quote?.net_premium ?? null,
        quote?.gross_premium ?? null,
        terms.term.startDate,
        terms.term.endDate,
        JSON.stringify(terms.slabs),
        terms.defaultSumInsured,
        tx.clientId,
        renewal.policy_id,
      ],
    );
    if (draft.carried.length > 0) {
      await tx.sql(
        `insert into policy_members (id, client_id, policy_id, employee_id, dependent_id, insurer_member_id, uhid,
           coverage_start_date, coverage_end_date, premium_amount, sum_insured, remaining_sum_insured, status,
           employee_name, member_rank)
         select 'mem_' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 22), m.client_id, ?, m.employee_id,
                m.dependent_id, m.insurer_member_id, m.uhid, ?, ?, c.premium, c.sum_insured, c.sum_insured, 'active',
                m.employee_name, m.member_rank
           from jsonb_to_recordset(?::jsonb) as c(member_id text, sum_insured numeric, premium numeric)
           join policy_members m on m.client_id = ? and m.id = c.member_id`,
        [
          newPolicyId,
          terms.term.startDate,
          terms.term.endDate,
          JSON.stringify(
            draft.carried.map((c) => ({
              member_id: c.memberId,
              sum_insured: c.nextSumInsured,
              premium: c.annualPremiumAfter,
            })),
          ),
          tx.clientId,
        ],
      );
    }
    const account = await lockPolicyCd(tx, renewal.policy_id);
    const available = account ? toPaise(account.cd_balance) - toPaise(account.cd_held) : 0n;
    if (available > 0n) {
      const reason = `renewal ${renewal.id}: balance carried to the term from ${terms.term.startDate}`;
      await postCdEntry(tx, {
        policyId: renewal.policy_id,
        kind: 'adjustment',
        reference: `renewal:${renewal.id}:out`,
        amount: -available,
        held: 0n,
        guarded: true,
        reason,
      });
      await postCdEntry(tx, {
        policyId: newPolicyId,
        kind: 'adjustment',
        reference: `renewal:${renewal.id}:in`,
        amount: available,
        held: 0n,
        guarded: false,
        reason,
      });
    }
    await tx.sql(`update policies set status = 'POLICY_STATUS_INACTIVE' where client_id = ? and id = ?`, [
      tx.clientId,
      renewal.policy_id,
    ]);
    const deliveries = await moveRenewal(tx, renewal.id, ['CONFIRMED'], 'RENEWED', { newPolicyId });
    if (deliveries === null) throw new Error(`renewal ${renewal.id} is not CONFIRMED`);
    return { newPolicyId, deliveries };
  });
}

/** A declined renewal at the term's end: the old term INACTIVE, the renewal EXPIRED, once. */
export async function expireDeclined(scope: TenantScope, renewal: RenewalRow): Promise<string[]> {
  return scope.transaction(async (tx) => {
    const deliveries = await moveRenewal(tx, renewal.id, ['DECLINED'], 'EXPIRED');
    if (deliveries === null) return [];
    await tx.sql(`update policies set status = 'POLICY_STATUS_INACTIVE' where client_id = ? and id = ?`, [
      tx.clientId,
      renewal.policy_id,
    ]);
    return deliveries;
  });
}

/**
 * ACTIVE policies (any tenant) whose renewal window has opened by `today` (end − lead days) and whose
 * next term has no renewal yet, nor a policy renewing them: the daily pass starts theirs.
 */
export async function listPoliciesDueForRenewal(
  system: SystemScope,
  today: string,
  leadDays: number,
): Promise<{ client_id: string; id: string; end_date: string }[]> {
  return system.sql(
    `select p.client_id, p.id, p.end_date::text as end_date from policies p
      where p.status = 'POLICY_STATUS_ACTIVE' and p.end_date - ?::int <= ?::date and p.end_date >= ?::date
        and not exists (select 1 from policy_renewals r where r.policy_id = p.id)
        and not exists (select 1 from policies n where n.renewed_from = p.id)
      order by p.end_date, p.id limit 500`,
    [leadDays, today, today],
  );
}

/** Renewals still waiting for a date (any tenant): the daily pass wakes their workflows to look at the clock. */
export async function listOpenRenewals(
  system: SystemScope,
): Promise<{ client_id: string; id: string; policy_id: string; term_start: string }[]> {
  return system.sql(
    `select client_id, id, policy_id, term_start::text as term_start from policy_renewals
      where status in ('DRAFT', 'CONFIRMED', 'DECLINED') order by term_start, id limit 1000`,
  );
}

/** The policy's insurer as its adapter needs it: code, adapter, stored settings. */
export async function renewalInsurer(
  scope: TenantScope,
  insurerId: string,
): Promise<{ code: string; adapter: InsurerAdapterName; adapter_settings: unknown }> {
  const [row] = await scope.sql<{ code: string; adapter: InsurerAdapterName; adapter_settings: unknown }>(
    'select code, adapter, adapter_settings from insurers where id = ?',
    [insurerId],
  );
  if (!row) throw new Error(`insurer ${insurerId} not found`);
  return row;
}
