import { Migration } from '@mikro-orm/migrations';
import { tenantPolicies } from './0027-database-roles.js';

export const TALLY_TENANT_TABLES = ['policy_tally_changes'] as const;

const PENDING = "'ENDORSEMENT_STATUS_PENDING'";
const SENT = "'ENDORSEMENT_STATUS_SENT_TO_INSURER'";
/** The CD forecast's premium of an endorsement: PENDING, costing something, holding nothing yet. */
const forecast = (row: string) =>
  `case when ${row}.status = ${PENDING} and ${row}.premium_impact > 0 and not ${row}.cd_holding
        then ${row}.premium_impact else 0 end`;
/** 1 for an endorsement waiting for its insurer (D14's backlog), else 0. */
const sent = (row: string) => `case when ${row}.status = ${SENT} then 1 else 0 end`;

/**
 * Three sums kept on the policy rather than counted where a hot path would read every row of it
 * (docs/architecture.md, "Sums kept"; figures in docs/performance.md):
 *
 * - `cd_pending`: the CD low-balance check's PENDING additions holding nothing yet. The check runs on
 *   every hold, under the policy's lock, and summed them with one ledger probe each: 64 ms at 10,000
 *   pending, so a census's reviews took their holds about 14 a second.
 * - `member_count`: D5's `total_count` of the unfiltered members list, which read all 250,000 member
 *   rows of a 100,000-employee client's policy on every page.
 * - `sent_count`: endorsements waiting for the insurer; the insurer's backlog (D14) sums it over the
 *   insurer's policies for its `total_count` instead of counting 100,000 waiting rows per page.
 *
 * Each is the policy's column as of its last fold plus the rows of `policy_tally_changes` since:
 * triggers on endorsements and policy_members append one signed row per change (per statement for
 * inserts, per row otherwise), and never touch the policy row, so a create, a status change or an
 * enrolment waits on no lock it did not take before. A transaction holding the policy row anyway
 * (the CD check, the approval) folds the rows in and deletes them.
 *
 * `endorsements.cd_holding` marks a placed hold (a trigger on the ledger's hold entry, in the hold's
 * own transaction; entries are never deleted, so it never goes back). Exact under concurrency: every
 * change of a column the sums read is an update of the endorsement's own row, so two changes of one
 * endorsement serialise on its row lock and each trigger sees the other's result as OLD. The triggers
 * run as the writer, held to row-level security like it (the change row carries the row's client).
 */
export class Migration0033PolicyTallies extends Migration {
  override up(): void {
    this.addSql(`
alter table endorsements add column cd_holding boolean not null default false;
update endorsements e set cd_holding = true
 where exists (select 1 from cd_ledger_entries h where h.endorsement_id = e.id and h.kind = 'hold');

alter table policies add column cd_pending numeric(14,2) not null default 0;
alter table policies add column member_count bigint not null default 0;
alter table policies add column sent_count bigint not null default 0;
update policies p set cd_pending = s.cd_pending, sent_count = s.sent
  from (select e.policy_id, sum(${forecast('e')}) as cd_pending, sum(${sent('e')}) as sent
          from endorsements e group by e.policy_id) s
 where s.policy_id = p.id;
update policies p set member_count = s.n
  from (select policy_id, count(*) as n from policy_members group by policy_id) s
 where s.policy_id = p.id;

create table policy_tally_changes (
  id bigserial primary key,
  client_id text not null,
  policy_id text not null,
  cd_pending numeric(14,2) not null default 0,
  members integer not null default 0,
  sent integer not null default 0
);
create index policy_tally_changes_policy on policy_tally_changes (client_id, policy_id);
${TALLY_TENANT_TABLES.map(tenantPolicies).join('\n')}

create function endorsements_tally_inserted() returns trigger language plpgsql as $$
begin
  insert into policy_tally_changes (client_id, policy_id, cd_pending, sent)
  select client_id, policy_id, s.cd_pending, s.sent
    from (select n.client_id, n.policy_id, sum(${forecast('n')}) as cd_pending, sum(${sent('n')}) as sent
            from inserted n group by n.client_id, n.policy_id) s
   where s.cd_pending <> 0 or s.sent <> 0;
  return null;
end
$$;
create trigger endorsements_tally_inserted after insert on endorsements
  referencing new table as inserted for each statement execute function endorsements_tally_inserted();

create function endorsements_tally_changed() returns trigger language plpgsql as $$
begin
  -- A change within one policy is one row of differences. A delete, or a move, takes the figures of
  -- the old row off its policy (and puts those of the new row on its own). Each IF condition is in
  -- parentheses: PL/pgSQL ends an unbracketed one at the first THEN, a CASE's included.
  if tg_op = 'UPDATE' and old.client_id = new.client_id and old.policy_id = new.policy_id then
    if (${forecast('new')} - ${forecast('old')} <> 0 or ${sent('new')} - ${sent('old')} <> 0) then
      insert into policy_tally_changes (client_id, policy_id, cd_pending, sent)
      values (new.client_id, new.policy_id, ${forecast('new')} - ${forecast('old')}, ${sent('new')} - ${sent('old')});
    end if;
    return null;
  end if;
  if (${forecast('old')} <> 0 or ${sent('old')} <> 0) then
    insert into policy_tally_changes (client_id, policy_id, cd_pending, sent)
    values (old.client_id, old.policy_id, -(${forecast('old')}), -(${sent('old')}));
  end if;
  if tg_op = 'UPDATE' and (${forecast('new')} <> 0 or ${sent('new')} <> 0) then
    insert into policy_tally_changes (client_id, policy_id, cd_pending, sent)
    values (new.client_id, new.policy_id, ${forecast('new')}, ${sent('new')});
  end if;
  return null;
end
$$;
create trigger endorsements_tally_updated
  after update of status, premium_impact, cd_holding, policy_id, client_id on endorsements for each row
  when (old.status is distinct from new.status or old.premium_impact is distinct from new.premium_impact
        or old.cd_holding is distinct from new.cd_holding or old.policy_id is distinct from new.policy_id
        or old.client_id is distinct from new.client_id)
  execute function endorsements_tally_changed();
create trigger endorsements_tally_deleted after delete on endorsements for each row
  execute function endorsements_tally_changed();

create function cd_ledger_hold_placed() returns trigger language plpgsql as $$
begin
  update endorsements set cd_holding = true where id = new.endorsement_id and not cd_holding;
  return null;
end
$$;
create trigger cd_ledger_hold_placed after insert on cd_ledger_entries for each row
  when (new.kind = 'hold' and new.endorsement_id is not null) execute function cd_ledger_hold_placed();

-- One function for both statement triggers: each names only its own transition table, and PL/pgSQL
-- plans a statement when it first runs, so the branch not taken never refers to the other.
create function policy_members_tally_written() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into policy_tally_changes (client_id, policy_id, members)
    select client_id, policy_id, count(*) from inserted group by client_id, policy_id;
  else
    insert into policy_tally_changes (client_id, policy_id, members)
    select client_id, policy_id, -count(*) from deleted group by client_id, policy_id;
  end if;
  return null;
end
$$;
create trigger policy_members_tally_inserted after insert on policy_members
  referencing new table as inserted for each statement execute function policy_members_tally_written();
create trigger policy_members_tally_deleted after delete on policy_members
  referencing old table as deleted for each statement execute function policy_members_tally_written();

create function policy_members_tally_moved() returns trigger language plpgsql as $$
begin
  insert into policy_tally_changes (client_id, policy_id, members)
  values (old.client_id, old.policy_id, -1), (new.client_id, new.policy_id, 1);
  return null;
end
$$;
create trigger policy_members_tally_moved after update of policy_id, client_id on policy_members for each row
  when (old.policy_id is distinct from new.policy_id or old.client_id is distinct from new.client_id)
  execute function policy_members_tally_moved();
`);
  }

  override down(): void {
    this.addSql(`
drop trigger policy_members_tally_moved on policy_members;
drop function policy_members_tally_moved();
drop trigger policy_members_tally_deleted on policy_members;
drop trigger policy_members_tally_inserted on policy_members;
drop function policy_members_tally_written();
drop trigger cd_ledger_hold_placed on cd_ledger_entries;
drop function cd_ledger_hold_placed();
drop trigger endorsements_tally_deleted on endorsements;
drop trigger endorsements_tally_updated on endorsements;
drop function endorsements_tally_changed();
drop trigger endorsements_tally_inserted on endorsements;
drop function endorsements_tally_inserted();
drop table policy_tally_changes;
alter table policies drop column sent_count;
alter table policies drop column member_count;
alter table policies drop column cd_pending;
alter table endorsements drop column cd_holding;
`);
  }
}
