import { Migration } from '@mikro-orm/migrations';
import { tenantPolicies } from './0027-database-roles.js';

export const MEMBER_COUNT_TENANT_TABLES = ['policy_member_changes'] as const;

/**
 * A policy's member count kept rather than counted (D5's exact `total_count` on every members page).
 * Counting read every member row of the policy: at 250,000 members (a 100,000-employee client) the
 * page cost 2.4x the same page of a 20,000-member policy, at page 1 as at page 2,000, even as 0032's
 * index-only scan (docs/performance.md).
 *
 * - `policies.member_count`: the policy's member rows as of the last fold.
 * - `policy_member_changes`: what changed it since, written by triggers on policy_members (one row per
 *   inserting or deleting statement and policy; a row moved to another policy, per row). Appending
 *   never waits on the policy row, so enrolling members takes no lock it did not take before.
 * - The unfiltered members page reads the count plus the changes not yet folded; the approval folds
 *   them (it locks the policy row for its CD posting anyway), so they stay few.
 */
export class Migration0034PolicyMemberCountKept extends Migration {
  override up(): void {
    this.addSql(`
alter table policies add column member_count bigint not null default 0;
update policies p set member_count = s.n
  from (select policy_id, count(*) as n from policy_members group by policy_id) s
 where s.policy_id = p.id;

create table policy_member_changes (
  id bigserial primary key,
  client_id text not null,
  policy_id text not null,
  delta integer not null
);
create index policy_member_changes_policy on policy_member_changes (client_id, policy_id);
${MEMBER_COUNT_TENANT_TABLES.map(tenantPolicies).join('\n')}

create function policy_members_inserted() returns trigger language plpgsql as $$
begin
  insert into policy_member_changes (client_id, policy_id, delta)
  select client_id, policy_id, count(*) from inserted group by client_id, policy_id;
  return null;
end
$$;
create trigger policy_members_inserted after insert on policy_members
  referencing new table as inserted for each statement execute function policy_members_inserted();

create function policy_members_deleted() returns trigger language plpgsql as $$
begin
  insert into policy_member_changes (client_id, policy_id, delta)
  select client_id, policy_id, -count(*) from deleted group by client_id, policy_id;
  return null;
end
$$;
create trigger policy_members_deleted after delete on policy_members
  referencing old table as deleted for each statement execute function policy_members_deleted();

create function policy_members_moved() returns trigger language plpgsql as $$
begin
  insert into policy_member_changes (client_id, policy_id, delta)
  values (old.client_id, old.policy_id, -1), (new.client_id, new.policy_id, 1);
  return null;
end
$$;
create trigger policy_members_moved after update of policy_id, client_id on policy_members for each row
  when (old.policy_id is distinct from new.policy_id or old.client_id is distinct from new.client_id)
  execute function policy_members_moved();
`);
  }

  override down(): void {
    this.addSql(`
drop trigger policy_members_moved on policy_members;
drop function policy_members_moved();
drop trigger policy_members_deleted on policy_members;
drop function policy_members_deleted();
drop trigger policy_members_inserted on policy_members;
drop function policy_members_inserted();
drop table policy_member_changes;
alter table policies drop column member_count;
`);
  }
}
