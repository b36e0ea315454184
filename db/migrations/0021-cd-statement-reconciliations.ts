import { Migration } from '@mikro-orm/migrations';
import { policy } from './0009-row-level-security.js';

/** Tenant tables of the CD statement's reconciliation: row-level security as on every tenant table (0009). */
export const CD_STATEMENT_TENANT_TABLES = ['cd_statement_differences'] as const;

/**
 * The insurer's CD statement recorded like a roster reconciliation (issue 17): a row of
 * `roster_reconciliations` with `kind` 'cd_statement' (keyed by the statement's SHA-256, so the same
 * statement again records nothing), and its differences (references and amounts, no personal data)
 * numbered 1..n in `cd_statement_differences`.
 */
export class Migration0021CdStatementReconciliations extends Migration {
  override up(): void {
    this.addSql(`
alter table roster_reconciliations add column kind text not null default 'roster';

create table cd_statement_differences (
  reconciliation_id text not null references roster_reconciliations(id),
  seq integer not null,
  client_id text not null references clients(id),
  kind text not null,
  reference text,
  statement_row integer,
  ours text,
  theirs text,
  primary key (reconciliation_id, seq)
);
${CD_STATEMENT_TENANT_TABLES.map(policy).join('\n')}
`);
  }

  override down(): void {
    this.addSql('drop table cd_statement_differences; alter table roster_reconciliations drop column kind;');
  }
}
