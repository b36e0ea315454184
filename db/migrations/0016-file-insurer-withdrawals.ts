import { Migration } from '@mikro-orm/migrations';

/**
 * D7 + D14: an endorsement cancelled after its file insurer received it is withdrawn by the next
 * cut-off's file (a row with the template's cancellation word). Its workflow queues it
 * (`withdrawal_queued_at`), the cut-off that writes the row claims it (`withdrawal_cut_off_at`, one
 * claim: never in two files), and its mark records the delivery (`withdrawal_sent_at`).
 */
export class Migration0016FileInsurerWithdrawals extends Migration {
  override up(): void {
    this.addSql(`
      alter table endorsements add column withdrawal_queued_at timestamptz null;
      alter table endorsements add column withdrawal_cut_off_at timestamptz null;
      alter table endorsements add column withdrawal_sent_at timestamptz null;
      create index endorsements_awaiting_withdrawal on endorsements (withdrawal_queued_at)
        where withdrawal_queued_at is not null and withdrawal_cut_off_at is null;
      create index endorsements_withdrawal_cut_off on endorsements (withdrawal_cut_off_at)
        where withdrawal_cut_off_at is not null;
    `);
  }

  override down(): void {
    this.addSql(`
      drop index endorsements_withdrawal_cut_off;
      drop index endorsements_awaiting_withdrawal;
      alter table endorsements drop column withdrawal_sent_at;
      alter table endorsements drop column withdrawal_cut_off_at;
      alter table endorsements drop column withdrawal_queued_at;
    `);
  }
}
