import { Migration } from '@mikro-orm/migrations';
import { tenantPolicies } from './0027-database-roles.js';

export const CD_PENDING_TENANT_TABLES = ['cd_pending_changes'] as const;

const PENDING = "'ENDORSEMENT_STATUS_PENDING'";
/** An endorsement the low-balance forecast counts: PENDING, costing something, holding nothing yet. */
const counted = (row: string) =>
  `${row}.status = ${PENDING} and ${row}.premium_impact > 0 and not ${row}.cd_holding`;

/**
 * The CD low-balance check's forecast kept rather than recounted (data/cd-account/account.ts
 * checkCdLow). It adds the premiums of the policy's PENDING additions that hold nothing yet, and
 * summed them on every hold, under the policy's lock, with one probe of the ledger per addition:
 * 64 ms at 10,000 pending, so a census's reviews took their holds ≈14 a second, one after the other
 * (docs/performance.md).
 *
 * - `endorsements.cd_holding`: the hold is placed (set by a trigger on the ledger's hold entry, in
 *   the hold's own transaction; entries are never deleted, so it never goes back).
 * - `policies.cd_pending`: the forecast's sum as of the policy's last check.
 * - `cd_pending_changes`: what changed it since, one signed row per change, written by triggers on
 *   endorsements (an insert counts its rows per statement; a change of status, premium, hold or
 *   policy, and a delete, per row). Appending never waits on the policy row, so a create, a status
 *   change or a census's insert is not made to queue behind the account's decisions; the check
 *   (under the policy's lock) folds the rows into `cd_pending` and deletes them.
 *
 * Exact under concurrency: every change of a counted column is an update of the endorsement's own
 * row, so two changes of one endorsement serialise on its row lock and each trigger sees the other's
 * result as OLD. The triggers run as the writer, held to row-level security like it (the change
 * row carries the endorsement's client).
 */
export class Migration0033CdPendingForecast extends Migration {
  override up(): void {
    this.addSql(`
alter table endorsements add column cd_holding boolean not null default false;
update endorsements e set cd_holding = true
 where exists (select 1 from cd_ledger_entries h where h.endorsement_id = e.id and h.kind = 'hold');

alter table policies add column cd_pending numeric(14,2) not null default 0;
update policies p set cd_pending = s.total
  from (select e.policy_id, sum(e.premium_impact) as total from endorsements e
         where ${counted('e')} group by e.policy_id) s
 where s.policy_id = p.id;

create table cd_pending_changes (
  id bigserial primary key,
  client_id text not null,
  policy_id text not null,
  amount numeric(14,2) not null
);
create index cd_pending_changes_policy on cd_pending_changes (policy_id);
${CD_PENDING_TENANT_TABLES.map(tenantPolicies).join('\n')}

create function endorsements_cd_pending_inserted() returns trigger language plpgsql as $$
begin
  insert into cd_pending_changes (client_id, policy_id, amount)
  select n.client_id, n.policy_id, sum(n.premium_impact) from inserted n
   where ${counted('n')} group by n.client_id, n.policy_id;
  return null;
end
$$;
create trigger endorsements_cd_pending_inserted after insert on endorsements
  referencing new table as inserted for each statement execute function endorsements_cd_pending_inserted();

create function endorsements_cd_pending_changed() returns trigger language plpgsql as $$
begin
  if tg_op <> 'INSERT' and ${counted('old')} then
    insert into cd_pending_changes (client_id, policy_id, amount)
    values (old.client_id, old.policy_id, -old.premium_impact);
  end if;
  if tg_op <> 'DELETE' and ${counted('new')} then
    insert into cd_pending_changes (client_id, policy_id, amount)
    values (new.client_id, new.policy_id, new.premium_impact);
  end if;
  return null;
end
$$;
create trigger endorsements_cd_pending_updated
  after update of status, premium_impact, cd_holding, policy_id on endorsements for each row
  when (old.status is distinct from new.status or old.premium_impact is distinct from new.premium_impact
        or old.cd_holding is distinct from new.cd_holding or old.policy_id is distinct from new.policy_id)
  execute function endorsements_cd_pending_changed();
create trigger endorsements_cd_pending_deleted after delete on endorsements for each row
  when (${counted('old')}) execute function endorsements_cd_pending_changed();

create function cd_ledger_hold_placed() returns trigger language plpgsql as $$
begin
  update endorsements set cd_holding = true where id = new.endorsement_id and not cd_holding;
  return null;
end
$$;
create trigger cd_ledger_hold_placed after insert on cd_ledger_entries for each row
  when (new.kind = 'hold' and new.endorsement_id is not null) execute function cd_ledger_hold_placed();
`);
  }

  override down(): void {
    this.addSql(`
drop trigger cd_ledger_hold_placed on cd_ledger_entries;
drop function cd_ledger_hold_placed();
drop trigger endorsements_cd_pending_deleted on endorsements;
drop trigger endorsements_cd_pending_updated on endorsements;
drop function endorsements_cd_pending_changed();
drop trigger endorsements_cd_pending_inserted on endorsements;
drop function endorsements_cd_pending_inserted();
drop table cd_pending_changes;
alter table policies drop column cd_pending;
alter table endorsements drop column cd_holding;
`);
  }
}
