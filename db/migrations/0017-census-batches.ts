import { Migration } from '@mikro-orm/migrations';

/**
 * Census batches (D16): an HR census committed as one batch, applied row by row by its workflow.
 *
 * - `census_batches`: one per committed census; `totals` is the plan's totals at commit (the
 *   dry run's answer for the same file), `status` RUNNING until every row has an outcome.
 * - `census_batch_rows`: every row of the census, keyed by (batch, row number): the person's
 *   details for a new employee (`person`, personal data: it never leaves PostgreSQL), the row's
 *   plan (`plan`, as the dry run shows it) and, once applied, its outcome. The outcome is set in the
 *   same transaction as the row's writes, so a row is applied exactly once.
 */
export class Migration0017CensusBatches extends Migration {
  override up(): void {
    this.addSql(`
create table census_batches (
  id text primary key,
  client_id text not null references clients(id),
  status text not null,
  row_count integer not null,
  totals jsonb not null default '{}',
  actor_token_id text,
  created_at timestamptz not null default now(),
  completed_at timestamptz
);
create index census_batches_client on census_batches (client_id, created_at);

create table census_batch_rows (
  batch_id text not null references census_batches(id),
  row_number integer not null,
  client_id text not null references clients(id),
  employee_code text not null,
  person jsonb,
  plan jsonb not null,
  outcome text,
  employee_id text,
  endorsement_id text,
  reason text,
  applied_at timestamptz,
  primary key (batch_id, row_number)
);
`);
  }

  override down(): void {
    this.addSql('drop table census_batch_rows; drop table census_batches;');
  }
}
