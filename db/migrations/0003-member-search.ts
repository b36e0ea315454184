import { Migration } from '@mikro-orm/migrations';

/**
 * List Members' search (D5: case-insensitive substring of employee name or email) through trigram
 * indexes: ILIKE '%term%' over a 10,000-member policy otherwise reads every employee of the client.
 * pg_trgm is a trusted extension (PostgreSQL 13+), so the database owner may create it.
 */
export class Migration0003MemberSearch extends Migration {
  override up(): void {
    this.addSql(`
create extension if not exists pg_trgm;
create index employees_name_trgm on employees using gin (name gin_trgm_ops);
create index employees_email_trgm on employees using gin (email gin_trgm_ops);
`);
  }
}
