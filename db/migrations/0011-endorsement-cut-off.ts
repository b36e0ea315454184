import { Migration } from '@mikro-orm/migrations';

/**
 * D14 file insurers: an endorsement reviewed for a file insurer waits for its insurer's cut-off
 * (`cut_off_queued_at`, set by its workflow), and the cut-off that carries it in its file claims it
 * (`cut_off_at`, the cut-off's instant, which also names the file). One claim per endorsement: two
 * cut-offs never put the same endorsement in two files, and a retried cut-off rewrites exactly the
 * endorsements it claimed.
 */
export class Migration0011EndorsementCutOff extends Migration {
  override up(): void {
    this.addSql(`
      alter table endorsements add column cut_off_queued_at timestamptz null;
      alter table endorsements add column cut_off_at timestamptz null;
      create index endorsements_awaiting_cut_off on endorsements (cut_off_queued_at)
        where cut_off_queued_at is not null and cut_off_at is null;
      create index endorsements_cut_off on endorsements (cut_off_at) where cut_off_at is not null;
    `);
  }

  override down(): void {
    this.addSql(`
      drop index endorsements_cut_off;
      drop index endorsements_awaiting_cut_off;
      alter table endorsements drop column cut_off_at;
      alter table endorsements drop column cut_off_queued_at;
    `);
  }
}
