import { Migration } from '@mikro-orm/migrations';

/**
 * The whole data model. Written as SQL so the database itself enforces the idempotency rules of the
 * decisions (partial unique indexes, ledger keyed by endorsement) instead of code doing read-then-write.
 */
export class Migration0001Initial extends Migration {
  override up(): void {
    this.addSql(`
create table clients (
  id text primary key,
  name text not null,
  secret_hash text not null,
  secret_version integer not null default 1,
  allowed_scopes text[] not null,
  created_at timestamptz not null default now()
);

create table token_issues (
  id bigserial primary key,
  client_id text not null references clients(id) on delete cascade,
  succeeded boolean not null,
  created_at timestamptz not null default now()
);
create index token_issues_window on token_issues (client_id, created_at);

create table insurers (
  id text primary key,
  client_id text not null references clients(id),
  code text not null,
  name text not null,
  logo_url text not null,
  network_hospital_url text,
  daycare_url text,
  adapter text not null default 'simulated' check (adapter in ('simulated', 'manual')),
  unique (client_id, code)
);

create table tpas (
  id text primary key,
  client_id text not null references clients(id),
  code text not null,
  name text not null,
  unique (client_id, code)
);

create table products (
  id text primary key,
  client_id text not null references clients(id),
  insurer_id text not null references insurers(id),
  code text not null,
  name text not null,
  category text not null,
  unique (client_id, code)
);

create table policies (
  id text primary key,
  client_id text not null references clients(id),
  policy_number text not null,
  insurer_id text not null references insurers(id),
  product_id text not null references products(id),
  tpa_id text not null references tpas(id),
  net_premium numeric(14,2) not null,
  gross_premium numeric(14,2) not null,
  coverage_type text not null,
  type text not null,
  status text not null,
  start_date date not null,
  end_date date not null check (end_date > start_date),
  slabs jsonb not null,
  default_sum_insured numeric(14,2) not null,
  inclusions text not null default '',
  exclusions text not null default '',
  terms_conditions text not null default '',
  policy_document_url text not null default '',
  network_hospital_url text,
  daycare_url text,
  cd_balance numeric(14,2) not null default 0,
  created_at timestamptz not null default now(),
  unique (client_id, policy_number)
);
create index policies_page on policies (client_id, start_date desc, id desc);
create index policies_status_page on policies (client_id, status, start_date desc, id desc);

create table users (
  id text primary key,
  client_id text not null references clients(id),
  email_key text not null,
  created_at timestamptz not null default now(),
  unique (client_id, email_key)
);

create table employees (
  id text primary key,
  client_id text not null references clients(id),
  user_id text not null references users(id),
  employee_code text not null,
  name text not null,
  email text not null,
  phone_number text not null,
  date_of_birth date not null,
  gender text not null,
  designation text not null default '',
  department text not null default '',
  date_of_joining date,
  date_of_leaving date,
  address text not null default '',
  personal_email text not null default '',
  personal_phone_number text not null default '',
  is_admin boolean not null default false,
  status text not null,
  last_active_date date,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (client_id, employee_code),
  unique (client_id, user_id)
);

create table dependents (
  id text primary key,
  client_id text not null references clients(id),
  employee_id text not null references employees(id),
  name text not null,
  relationship text not null,
  date_of_birth date not null,
  gender text not null,
  created_at timestamptz not null default now()
);
create index dependents_employee on dependents (client_id, employee_id);

create table grants (
  id text primary key,
  client_id text not null references clients(id),
  employee_id text not null references employees(id),
  policy_id text references policies(id),
  start_date date not null,
  end_date date not null,
  status text not null,
  workflow_started_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table endorsements (
  id text primary key,
  client_id text not null references clients(id),
  policy_id text not null references policies(id),
  employee_id text not null references employees(id),
  grant_id text references grants(id),
  type text not null,
  status text not null,
  coverage_start_date date not null,
  coverage_end_date date not null,
  premium_impact numeric(14,2) not null,
  sum_insured numeric(14,2) not null,
  rejection_reason text,
  insurer_member_id text,
  uhid text,
  workflow_started_at timestamptz,
  decided_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
-- D7: at most one open endorsement per employee and policy, enforced by the database.
create unique index endorsements_one_open on endorsements (client_id, employee_id, policy_id)
  where status in ('ENDORSEMENT_STATUS_PENDING', 'ENDORSEMENT_STATUS_SENT_TO_INSURER');
create index endorsements_unstarted on endorsements (created_at) where workflow_started_at is null;
create index endorsements_grant on endorsements (grant_id) where grant_id is not null;

create table grant_items (
  grant_id text not null references grants(id),
  policy_id text not null references policies(id),
  client_id text not null references clients(id),
  outcome text not null,
  endorsement_id text references endorsements(id),
  detail text,
  created_at timestamptz not null default now(),
  primary key (grant_id, policy_id)
);

create table policy_members (
  id text primary key,
  client_id text not null references clients(id),
  policy_id text not null references policies(id),
  employee_id text not null references employees(id),
  dependent_id text references dependents(id),
  endorsement_id text references endorsements(id),
  insurer_member_id text,
  uhid text,
  coverage_start_date date not null,
  coverage_end_date date not null,
  premium_amount numeric(14,2),
  sum_insured numeric(14,2),
  remaining_sum_insured numeric(14,2),
  status text not null,
  employee_name text not null,
  member_rank smallint not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
-- Keyset paging (D5): employee name, employee, employee row first, then id.
create index policy_members_page on policy_members (client_id, policy_id, employee_name, employee_id, member_rank, id);
create index policy_members_employee on policy_members (client_id, employee_id);
-- One active row per covered person on a policy.
create unique index policy_members_one_active on policy_members (policy_id, employee_id, coalesce(dependent_id, ''))
  where status = 'active';
-- An endorsement enrols each person once, however often its activity is retried.
create unique index policy_members_by_endorsement on policy_members (endorsement_id, coalesce(dependent_id, ''))
  where endorsement_id is not null;

create table cd_ledger_entries (
  id text primary key,
  client_id text not null references clients(id),
  policy_id text not null references policies(id),
  endorsement_id text unique references endorsements(id),
  amount numeric(14,2) not null,
  balance_after numeric(14,2) not null,
  reason text not null,
  created_at timestamptz not null default now()
);
create index cd_ledger_policy on cd_ledger_entries (client_id, policy_id, created_at);

create table idempotency_records (
  client_id text not null references clients(id),
  route text not null,
  key text not null,
  request_hash text not null,
  response_status integer,
  response_body jsonb,
  created_at timestamptz not null default now(),
  primary key (client_id, route, key)
);

create table audit_events (
  id bigserial primary key,
  client_id text not null references clients(id),
  entity text not null,
  entity_id text not null,
  action text not null,
  changed_fields text[] not null default '{}',
  actor_token_id text,
  created_at timestamptz not null default now()
);
create index audit_events_entity on audit_events (client_id, entity, entity_id, id);
`);
  }
}
