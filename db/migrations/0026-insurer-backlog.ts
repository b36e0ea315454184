import { Migration } from '@mikro-orm/migrations';

/**
 * D14: an insurer lists what waits for it (`GET /v1/insurer/endorsements`), oldest first. Each
 * endorsement records when it went SENT_TO_INSURER (`sent_to_insurer_at`, set by the same statement
 * as the status; its SLA runs from then), and the waiting ones are indexed in that order, so a page
 * deep in the backlog starts at its cursor instead of reading the rows before it. Rows already
 * SENT_TO_INSURER take their last update (the status change) as that time.
 */
export class Migration0026InsurerBacklog extends Migration {
  override up(): void {
    this.addSql(`
      alter table endorsements add column sent_to_insurer_at timestamptz null;
      update endorsements set sent_to_insurer_at = updated_at where status = 'ENDORSEMENT_STATUS_SENT_TO_INSURER';
      create index endorsements_insurer_backlog on endorsements (sent_to_insurer_at, id)
        where status = 'ENDORSEMENT_STATUS_SENT_TO_INSURER';
    `);
  }

  override down(): void {
    this.addSql(`
      drop index endorsements_insurer_backlog;
      alter table endorsements drop column sent_to_insurer_at;
    `);
  }
}
