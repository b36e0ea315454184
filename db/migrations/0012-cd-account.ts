import { Migration } from '@mikro-orm/migrations';

/**
 * The CD account (issue 17): holds and postings in one ledger. Each entry moves the balance
 * (`amount`) and/or the sum held for endorsements under way (`held_change`); the policy row carries
 * both running totals and the number of its entries (`cd_entries`, the entry's `seq`: the order
 * every posting took the policy row's lock in, which keyset paging follows). An endorsement has at
 * most one entry of each kind (hold, release, debit, credit) and a top-up one per reference, so a
 * retried posting writes nothing twice. Balances no entry explained get an opening adjustment, so
 * the ledger sums to the balance from here on. An endorsement waiting for funds carries
 * `awaiting_funds_since` (oldest first per policy).
 */
export class Migration0012CdAccount extends Migration {
  override up(): void {
    this.addSql(`
      alter table policies add column cd_held numeric(14,2) not null default 0;
      alter table policies add column cd_entries bigint not null default 0;
      alter table policies add column cd_low_threshold numeric(14,2) null;
      alter table policies add column cd_low boolean not null default false;
      alter table policies add column cd_low_crossings integer not null default 0;
      alter table policies add constraint policies_cd_held_check check (cd_held >= 0);

      alter table endorsements add column awaiting_funds_since timestamptz null;
      create index endorsements_awaiting_funds on endorsements (policy_id, awaiting_funds_since, id)
        where awaiting_funds_since is not null;

      alter table cd_ledger_entries add column kind text null;
      alter table cd_ledger_entries add column held_change numeric(14,2) not null default 0;
      alter table cd_ledger_entries add column held_after numeric(14,2) not null default 0;
      alter table cd_ledger_entries add column reference text null;
      alter table cd_ledger_entries add column seq bigint null;
      update cd_ledger_entries set kind = case when amount < 0 then 'debit' else 'credit' end;
      insert into cd_ledger_entries (id, client_id, policy_id, amount, balance_after, reason, kind, reference, created_at)
      select 'ledger_' || replace(gen_random_uuid()::text, '-', ''), p.client_id, p.id,
             p.cd_balance - coalesce(s.total, 0), p.cd_balance - coalesce(s.total, 0), 'opening balance',
             'adjustment', 'opening-balance', p.created_at
        from policies p
        left join (select policy_id, sum(amount) as total from cd_ledger_entries group by policy_id) s
          on s.policy_id = p.id
       where p.cd_balance <> coalesce(s.total, 0);
      update cd_ledger_entries l set seq = n.seq
        from (select id, row_number() over (partition by policy_id order by created_at, id) as seq
                from cd_ledger_entries) n
       where n.id = l.id;
      update policies p set cd_entries = n.count
        from (select policy_id, count(*) as count from cd_ledger_entries group by policy_id) n
       where n.policy_id = p.id;
      alter table cd_ledger_entries alter column kind set not null;
      alter table cd_ledger_entries alter column seq set not null;
      alter table cd_ledger_entries drop constraint cd_ledger_entries_endorsement_id_key;
      create unique index cd_ledger_endorsement_kind on cd_ledger_entries (endorsement_id, kind)
        where endorsement_id is not null;
      create unique index cd_ledger_reference on cd_ledger_entries (policy_id, reference)
        where reference is not null;
      create unique index cd_ledger_page on cd_ledger_entries (client_id, policy_id, seq);
    `);
  }

  override down(): void {
    this.addSql(`
      drop index cd_ledger_page;
      drop index cd_ledger_reference;
      drop index cd_ledger_endorsement_kind;
      delete from cd_ledger_entries where endorsement_id is null or kind not in ('debit', 'credit');
      alter table cd_ledger_entries add constraint cd_ledger_entries_endorsement_id_key unique (endorsement_id);
      alter table cd_ledger_entries drop column seq;
      alter table cd_ledger_entries drop column reference;
      alter table cd_ledger_entries drop column held_after;
      alter table cd_ledger_entries drop column held_change;
      alter table cd_ledger_entries drop column kind;
      drop index endorsements_awaiting_funds;
      alter table endorsements drop column awaiting_funds_since;
      alter table policies drop constraint policies_cd_held_check;
      alter table policies drop column cd_low_crossings;
      alter table policies drop column cd_low;
      alter table policies drop column cd_low_threshold;
      alter table policies drop column cd_entries;
      alter table policies drop column cd_held;
    `);
  }
}
