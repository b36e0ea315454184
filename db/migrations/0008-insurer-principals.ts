import { Migration } from '@mikro-orm/migrations';

/**
 * Insurer principals (D14): credentials an insurer uses to call `POST /v1/insurer/decisions`. Each
 * is bound to one insurer row and may hold only the `insurer.decisions` scope, so it is kept apart
 * from `clients` (tenants) and can never reach a tenant's routes. Their issued tokens are counted in
 * their own rolling-hour table (D4's limit, as for clients).
 */
export class Migration0008InsurerPrincipals extends Migration {
  override up(): void {
    this.addSql(`
      create table insurer_principals (
        id text primary key,
        insurer_id text not null references insurers(id) on delete cascade,
        secret_hash text not null,
        secret_version integer not null default 1,
        created_at timestamptz not null default now()
      );
      create index insurer_principals_insurer on insurer_principals (insurer_id);
      create table insurer_token_issues (
        id bigserial primary key,
        principal_id text not null references insurer_principals(id) on delete cascade,
        created_at timestamptz not null default now()
      );
      create index insurer_token_issues_window on insurer_token_issues (principal_id, created_at);
    `);
  }

  override down(): void {
    this.addSql('drop table insurer_token_issues; drop table insurer_principals;');
  }
}
