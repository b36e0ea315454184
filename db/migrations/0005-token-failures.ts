import { Migration } from '@mikro-orm/migrations';

/**
 * Failed token requests, budgeted apart from successful ones (D4, revised): per (client_id as sent,
 * source address) and per source address, so a guesser is stopped without locking the client's owner
 * out from elsewhere, and unknown client_ids are limited exactly like known ones. `client_key` is not
 * a reference: an unknown id must leave the same trace as a known one. Rows older than the window are
 * pruned by the next request from the same source.
 */
export class Migration0005TokenFailures extends Migration {
  override up(): void {
    this.addSql(`
      create table token_failures (
        id bigserial primary key,
        client_key text not null,
        source text not null,
        created_at timestamptz not null default now()
      );
      create index token_failures_client_source on token_failures (client_key, source, created_at);
      create index token_failures_source on token_failures (source, created_at);
      delete from token_issues where not succeeded;
    `);
  }

  override down(): void {
    this.addSql('drop table token_failures;');
  }
}
