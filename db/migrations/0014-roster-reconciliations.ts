import { Migration } from '@mikro-orm/migrations';

/**
 * Roster reconciliation: the insurer's list of covered members checked against our member rows.
 *
 * - `roster_reconciliations`: one per roster per policy, keyed by `run_key` (the roster's SHA-256,
 *   plus the scheduled run for a fetched roster), so the same file reconciled again answers the
 *   recorded result. `seq` orders a policy's reconciliations newest first (keyset, D5). `counts`
 *   holds the number of differences of each kind.
 * - `roster_rows`: the parsed roster, staged for the set-based comparison (the roster never travels
 *   through Temporal), removed once the reconciliation completes. `member_id` is the member row it
 *   was matched to.
 * - `roster_differences`: every difference found, numbered 1..n in a stable order (`seq`).
 */
export class Migration0014RosterReconciliations extends Migration {
  override up(): void {
    this.addSql(`
create table roster_reconciliations (
  id text primary key,
  seq bigserial not null,
  client_id text not null references clients(id),
  policy_id text not null references policies(id),
  source text not null,
  file_name text,
  run_key text not null,
  status text not null,
  error text,
  roster_rows integer not null default 0,
  counts jsonb not null default '{}',
  created_at timestamptz not null default now(),
  completed_at timestamptz,
  constraint roster_reconciliations_policy_id_run_key_key unique (policy_id, run_key)
);
create index roster_reconciliations_page on roster_reconciliations (client_id, policy_id, seq);

create table roster_rows (
  reconciliation_id text not null references roster_reconciliations(id),
  row_number integer not null,
  client_id text not null references clients(id),
  uhid text,
  insurer_member_id text,
  employee_code text not null,
  name text not null,
  date_of_birth date not null,
  relationship text not null,
  sum_insured numeric(14,2),
  coverage_start_date date,
  coverage_end_date date,
  active boolean not null,
  member_id text,
  primary key (reconciliation_id, row_number)
);

create table roster_differences (
  reconciliation_id text not null references roster_reconciliations(id),
  seq integer not null,
  client_id text not null references clients(id),
  kind text not null,
  explains text,
  member_id text,
  employee_id text,
  employee_code text not null,
  relationship text not null,
  roster_row integer,
  field text,
  ours text,
  theirs text,
  endorsement_id text,
  primary key (reconciliation_id, seq)
);
`);
  }

  override down(): void {
    this.addSql('drop table roster_differences; drop table roster_rows; drop table roster_reconciliations;');
  }
}
