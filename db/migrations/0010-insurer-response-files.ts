import { Migration } from '@mikro-orm/migrations';

/**
 * Response files read from file insurers' inboxes (D14), one row per (insurer code, file name,
 * content hash): the key that makes ingesting the same file again answer the recorded outcome
 * instead of applying it twice. `rows` holds each row's outcome (row number, reference, result,
 * detail: ids and our answers, never the insurer's personal data); `error` a file refused whole.
 * Reference data is per client, so the insurer is named by its code (the exchange's key).
 */
export class Migration0010InsurerResponseFiles extends Migration {
  override up(): void {
    this.addSql(`
      create table insurer_response_files (
        id bigserial primary key,
        insurer_code text not null,
        file_name text not null,
        sha256 text not null,
        status text not null,
        error text,
        rows jsonb not null default '[]',
        created_at timestamptz not null default now(),
        constraint insurer_response_files_insurer_code_file_name_sha256_key
          unique (insurer_code, file_name, sha256)
      );
    `);
  }

  override down(): void {
    this.addSql('drop table insurer_response_files;');
  }
}
