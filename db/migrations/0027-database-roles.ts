import { Migration } from '@mikro-orm/migrations';
import { SYSTEM_ROLE, SYSTEM_SETTING, TENANT_SETTING } from '../roles.js';

const ownClient = `client_id = (select current_setting('${TENANT_SETTING}', true))`;
const systemOn = `(select current_setting('${SYSTEM_SETTING}', true)) = 'on'`;
/** An expression inside a quoted literal of the migration's own block (format's template). */
const inLiteral = (expression: string): string => expression.replace(/'/g, "''");

/**
 * A tenant table's row-level security from this migration on: `tenant_isolation` lets every role
 * (the service's and the system's) reach the rows of the transaction's `app.client_id`;
 * `system_access` lets only the system role reach every client's rows, and only in a transaction
 * that says `app.system = on` (SystemScope). Later migrations creating tenant tables use this, not
 * 0009's `policy`.
 */
export function tenantPolicies(table: string): string {
  return `alter table ${table} enable row level security;
create policy tenant_isolation on ${table} using (${ownClient}) with check (${ownClient});
create policy system_access on ${table} to ${SYSTEM_ROLE} using (${systemOn}) with check (${systemOn});`;
}

/**
 * Database roles as defence in depth (docs/security/database-roles.md):
 *
 * - Until now the service logged in as the owner and switched to `gha_app` with `SET ROLE`, which
 *   any statement could undo with `RESET ROLE`, and `app.system = on` opened every tenant's rows to
 *   whoever said it. From here the service logs in as `gha_app` itself (LOGIN and password are set
 *   by the owner at deploy time: db/orm.ts provisionLogins), so there is no role to return to.
 * - Role `gha_system`: cross-tenant work runs on a pool of its own that logs in as it. Same data
 *   privileges as `gha_app`, none on the migrations table, owns nothing, no BYPASSRLS: it is held to
 *   the policies like the service, and a TenantScope inside a system transaction (a reconciler
 *   handing one client's part on) is narrowed to that client as before.
 * - Every existing `tenant_isolation` policy (0009, 0015, 0018, 0021 and any other) drops its
 *   `app.system` branch and each tenant table gains `system_access` for `gha_system` alone. The
 *   policies are found in the catalogue rather than listed, so none is missed.
 * - Created only when missing and in a block that tolerates a concurrent creator: roles are
 *   cluster-wide and several databases of one cluster migrate at once (as 0009's role).
 */
export class Migration0027DatabaseRoles extends Migration {
  override up(): void {
    this.addSql(`
do $$
declare
  t regclass;
begin
  if not exists (select 1 from pg_roles where rolname = '${SYSTEM_ROLE}') then
    begin
      create role ${SYSTEM_ROLE} nologin;
    exception when duplicate_object or unique_violation then null;
    end;
  end if;
  for t in
    select p.polrelid::regclass from pg_policy p join pg_class c on c.oid = p.polrelid
     where p.polname = 'tenant_isolation' and c.relnamespace = current_schema()::regnamespace
  loop
    execute format('alter policy tenant_isolation on %s using (${inLiteral(ownClient)}) with check (${inLiteral(ownClient)})', t);
    execute format('create policy system_access on %s to ${SYSTEM_ROLE} using (${inLiteral(systemOn)}) with check (${inLiteral(systemOn)})', t);
  end loop;
  -- Platform partners (0024): every tenant reads them; only the system login may write them.
  for t in
    select p.polrelid::regclass from pg_policy p join pg_class c on c.oid = p.polrelid
     where p.polname = 'partners_write' and c.relnamespace = current_schema()::regnamespace
  loop
    execute format('alter policy partners_write on %s to ${SYSTEM_ROLE}', t);
  end loop;
end
$$;
grant usage on schema public to ${SYSTEM_ROLE};
grant select, insert, update, delete on all tables in schema public to ${SYSTEM_ROLE};
grant usage, select on all sequences in schema public to ${SYSTEM_ROLE};
revoke all on mikro_orm_migrations from ${SYSTEM_ROLE};
alter default privileges in schema public grant select, insert, update, delete on tables to ${SYSTEM_ROLE};
alter default privileges in schema public grant usage, select on sequences to ${SYSTEM_ROLE};
`);
  }

  override down(): void {
    const either = inLiteral(`${ownClient} or ${systemOn}`);
    this.addSql(`
do $$
declare
  t regclass;
begin
  for t in
    select p.polrelid::regclass from pg_policy p join pg_class c on c.oid = p.polrelid
     where p.polname = 'system_access' and c.relnamespace = current_schema()::regnamespace
  loop
    execute format('drop policy system_access on %s', t);
    execute format('alter policy tenant_isolation on %s using (${either}) with check (${either})', t);
  end loop;
  for t in
    select p.polrelid::regclass from pg_policy p join pg_class c on c.oid = p.polrelid
     where p.polname = 'partners_write' and c.relnamespace = current_schema()::regnamespace
  loop
    execute format('alter policy partners_write on %s to public', t);
  end loop;
end
$$;
alter default privileges in schema public revoke all on tables from ${SYSTEM_ROLE};
alter default privileges in schema public revoke all on sequences from ${SYSTEM_ROLE};
revoke all on all tables in schema public from ${SYSTEM_ROLE};
revoke all on all sequences in schema public from ${SYSTEM_ROLE};
revoke usage on schema public from ${SYSTEM_ROLE};
`);
  }
}
