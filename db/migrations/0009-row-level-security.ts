import { Migration } from '@mikro-orm/migrations';
import { SERVICE_ROLE, SYSTEM_SETTING, TENANT_SETTING } from '../roles.js';

/**
 * Every table holding one tenant's rows (a `client_id` column naming the owning client). Not here:
 * `clients` (the tenants themselves, read to authenticate before a tenant is known), `token_failures`
 * (keyed by the client id as sent, known or not), insurer principals and their token counts (no
 * tenant), webhook delivery attempts (no client id; reached through their delivery).
 */
export const TENANT_TABLES = [
  'token_issues',
  'insurers',
  'tpas',
  'products',
  'policies',
  'users',
  'employees',
  'dependents',
  'grants',
  'endorsements',
  'grant_items',
  'policy_members',
  'cd_ledger_entries',
  'idempotency_records',
  'audit_events',
  'webhook_endpoints',
  'webhook_events',
  'webhook_deliveries',
] as const;

/**
 * Tenancy in the database as well as in the code (D1, defence in depth):
 *
 * - Role `gha_app`: what the service runs as (db/orm.ts switches every pooled connection to it). No
 *   LOGIN, no ownership, data privileges only, and none on the migrations table. Created only when
 *   missing: roles are cluster-wide, and several databases of one cluster migrate at once (the
 *   loser of a creation race sees duplicate_object or unique_violation and goes on). The owner that
 *   migrates is made a member so it may `SET ROLE` (a superuser needs no membership).
 * - Default privileges: tables and sequences later migrations create are granted the same way.
 * - Row-level security on every tenant table: a row is visible and writable only when its
 *   client_id is the transaction's `app.client_id`, or when the transaction says `app.system = on`
 *   (data/scope.ts sets both with set_config(..., true), so they end with the transaction). Without
 *   either setting a statement sees no tenant rows and can write none. The settings are read through
 *   scalar subqueries, so each statement reads them once (not once per row).
 *   One role plus a system setting, not a second BYPASSRLS role for cross-tenant work: both kinds
 *   of work share one pool and transaction (a reconciler hands one tenant's part to a TenantScope
 *   inside its transaction), which a second role would split into two pools or a `SET ROLE` per
 *   statement; and whether a statement is cross-tenant stays visible at the call site (SystemScope).
 * - policy_members.employee_name_key, lower(employee_name) stored, replaces the expression in the
 *   members' keyset index. Under row-level security PostgreSQL applies the policy before any
 *   condition whose functions are not LEAKPROOF, so `(lower(employee_name), …) > (…)` could no
 *   longer bound the index scan (page 200 read the 10,000 rows before it); a comparison of plain
 *   text columns is leakproof and stays an index range. (Adding a stored column rewrites the table.)
 * - Not FORCE ROW LEVEL SECURITY: the owner never serves requests (it only migrates), and data
 *   fixes in later migrations must see every tenant's rows.
 */
export class Migration0009RowLevelSecurity extends Migration {
  override up(): void {
    this.addSql(`
do $$
begin
  if not exists (select 1 from pg_roles where rolname = '${SERVICE_ROLE}') then
    begin
      create role ${SERVICE_ROLE} nologin;
    exception when duplicate_object or unique_violation then null;
    end;
  end if;
  if not (select rolsuper from pg_roles where rolname = current_user)
     and not pg_has_role(current_user, '${SERVICE_ROLE}', 'member') then
    execute format('grant ${SERVICE_ROLE} to %I', current_user);
  end if;
end
$$;
grant usage on schema public to ${SERVICE_ROLE};
grant select, insert, update, delete on all tables in schema public to ${SERVICE_ROLE};
grant usage, select on all sequences in schema public to ${SERVICE_ROLE};
revoke all on mikro_orm_migrations from ${SERVICE_ROLE};
alter default privileges in schema public grant select, insert, update, delete on tables to ${SERVICE_ROLE};
alter default privileges in schema public grant usage, select on sequences to ${SERVICE_ROLE};
${TENANT_TABLES.map(policy).join('\n')}
alter table policy_members add column employee_name_key text generated always as (lower(employee_name)) stored;
create index policy_members_page_keyed
  on policy_members (client_id, policy_id, employee_name_key, employee_id, member_rank, id);
drop index policy_members_page_caseless;
`);
  }

  override down(): void {
    this.addSql(`
create index policy_members_page_caseless
  on policy_members (client_id, policy_id, lower(employee_name), employee_id, member_rank, id);
drop index policy_members_page_keyed;
alter table policy_members drop column employee_name_key;
${TENANT_TABLES.map((t) => `drop policy tenant_isolation on ${t};\nalter table ${t} disable row level security;`).join('\n')}
alter default privileges in schema public revoke all on tables from ${SERVICE_ROLE};
alter default privileges in schema public revoke all on sequences from ${SERVICE_ROLE};
revoke all on all tables in schema public from ${SERVICE_ROLE};
revoke all on all sequences in schema public from ${SERVICE_ROLE};
revoke usage on schema public from ${SERVICE_ROLE};
`);
  }
}

/** The policy as 0009 to 0021 created it; migration 0027 narrows it and later tables use its `tenantPolicies`. */
export function policy(table: string): string {
  const allowed =
    `client_id = (select current_setting('${TENANT_SETTING}', true)) ` +
    `or (select current_setting('${SYSTEM_SETTING}', true)) = 'on'`;
  return `alter table ${table} enable row level security;
create policy tenant_isolation on ${table} using (${allowed}) with check (${allowed});`;
}
