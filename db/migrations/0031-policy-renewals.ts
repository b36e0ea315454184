import { Migration } from '@mikro-orm/migrations';
import { tenantPolicies } from './0027-database-roles.js';

/** Tenant tables of the policy year's renewal: row-level security as on every tenant table (0009, 0027). */
export const RENEWAL_TENANT_TABLES = ['policy_renewals'] as const;

/**
 * D17's renewal: one row per policy term renewed (a policy row is one term, so the row is keyed by
 * the policy: a second open of the same term finds the first), its state, the insurer's quote for the next term
 * (null: the current terms carry over) and, once renewed, the new policy. The new term is a policy of
 * its own naming the one it renews (`renewed_from`, at most one renewal per policy).
 */
export class Migration0031PolicyRenewals extends Migration {
  override up(): void {
    this.addSql(`
-- No foreign key: the renewal row (policy_renewals) references both terms with theirs.
alter table policies add column renewed_from text;
create unique index policies_renewed_from on policies (renewed_from) where renewed_from is not null;

create table policy_renewals (
  id text primary key,
  client_id text not null references clients(id),
  policy_id text not null references policies(id),
  term_start date not null,
  term_end date not null,
  status text not null,
  quote jsonb,
  decided_by text,
  decided_at timestamptz,
  submitted_at timestamptz,
  new_policy_id text references policies(id),
  completed_at timestamptz,
  created_at timestamptz not null default now(),
  constraint policy_renewals_policy_id_key unique (policy_id)
);
create index policy_renewals_open on policy_renewals (status) where status in ('DRAFT', 'CONFIRMED', 'DECLINED');
${RENEWAL_TENANT_TABLES.map(tenantPolicies).join('\n')}
`);
  }

  override down(): void {
    this.addSql('drop table policy_renewals; alter table policies drop column renewed_from;');
  }
}
