import { expect } from 'chai';
import { buildDeps } from '../../api/server.js';
import { SystemScope, TenantScope } from '../../data/scope.js';
import { dropDatabase, ensureDatabase } from '../../db/databases.js';
import { DependentSchema, TENANT_FILTER } from '../../db/entities/index.js';
import { TENANT_TABLES as BASE_TENANT_TABLES } from '../../db/migrations/0009-row-level-security.js';
import { ROSTER_TENANT_TABLES } from '../../db/migrations/0015-roster-row-security.js';
import { CENSUS_TENANT_TABLES } from '../../db/migrations/0018-census-row-security.js';
import { CD_STATEMENT_TENANT_TABLES } from '../../db/migrations/0021-cd-statement-reconciliations.js';
import { PARTNER_TABLES } from '../../db/migrations/0024-platform-partners.js';
import { RENEWAL_TENANT_TABLES } from '../../db/migrations/0031-policy-renewals.js';
import { TALLY_TENANT_TABLES } from '../../db/migrations/0033-policy-tallies.js';
import { initOrm, loginsOf, migrate, migrateDatabase, type Orm } from '../../db/orm.js';
import { SERVICE_ROLE } from '../../db/roles.js';
import { newId } from '../../domain/ids.js';
import {
  makeClient,
  makeDependent,
  makeEmployee,
  makeMember,
  makePolicy,
  sql,
} from '../support/factories.js';
import { stack } from '../support/stack.js';

/** Every tenant table: 0009's (less the partners 0024 made the platform's) and those later migrations added. */
const TENANT_TABLES = [
  ...BASE_TENANT_TABLES.filter((t) => !(PARTNER_TABLES as readonly string[]).includes(t)),
  ...ROSTER_TENANT_TABLES,
  ...CENSUS_TENANT_TABLES,
  ...CD_STATEMENT_TENANT_TABLES,
  ...RENEWAL_TENANT_TABLES,
  ...TALLY_TENANT_TABLES,
];

/** A statement on the service role's pool with no scope: no row-level security setting at all. */
const bare = <T>(orm: Orm, query: string, params: unknown[] = []) =>
  orm.em.getConnection().execute<T[]>(query, params);

/** Two clients, each with an employee, a dependent, a policy and two member rows. */
async function twoTenants() {
  const made = [];
  for (let i = 0; i < 2; i++) {
    const { clientId } = await makeClient();
    const policy = await makePolicy(clientId);
    const employee = await makeEmployee(clientId);
    const dependent = await makeDependent(clientId, employee.id);
    await makeMember(clientId, policy.id, employee);
    await makeMember(clientId, policy.id, employee, { dependentId: dependent.id });
    made.push({ clientId, policy, employee, dependent });
  }
  return { a: made[0]!, b: made[1]! };
}

const RLS_REFUSED = /row-level security/;

describe('data: row-level security (D1 in the database)', () => {
  let service: Orm;

  before(async () => {
    // One connection: whatever a statement leaves on a session, the next statement meets.
    service = await initOrm({
      databaseUrl: stack().databaseUrl,
      systemDatabaseUrl: stack().systemDatabaseUrl,
      poolMax: 1,
    });
  });
  after(async () => {
    await service?.close();
  });

  it('runs the service as a role that owns nothing, is no superuser and does not bypass row security', async () => {
    const [me] = await bare<{ user: string; rolsuper: boolean; rolbypassrls: boolean }>(
      service,
      'select current_user as "user", rolsuper, rolbypassrls from pg_roles where rolname = current_user',
    );
    expect(me).to.deep.equal({ user: SERVICE_ROLE, rolsuper: false, rolbypassrls: false });
    const owned = await bare(
      service,
      'select 1 from pg_class where relowner = (select oid from pg_roles where rolname = current_user)',
    );
    expect(owned).to.have.length(0);
    const error = await bare(service, 'alter table employees disable row level security').catch(
      (e: Error) => e,
    );
    expect(String(error)).to.match(/must be owner/);
    const migrations = await bare(service, 'select 1 from mikro_orm_migrations').catch((e: Error) => e);
    expect(String(migrations)).to.match(/permission denied/);
  });

  it('the API and the worker connect as the service role (buildDeps and initOrm by default)', async () => {
    const deps = await buildDeps(stack().config, { temporal: stack().temporal });
    try {
      const [row] = await bare<{ user: string }>(deps.orm, 'select current_user as "user"');
      expect(row!.user).to.equal(SERVICE_ROLE);
    } finally {
      await deps.orm.close();
    }
    const [worker] = await bare<{ user: string }>(stack().serviceOrm, 'select current_user as "user"');
    expect(worker!.user).to.equal(SERVICE_ROLE);
  });

  it('protects every table with a client_id column, and only those the migration names', async () => {
    const tables = await sql(
      `select c.relname, c.relrowsecurity,
              array_agg(p.polname::text || ':' || array_to_string(p.polroles::regrole[], ',') order by p.polname) as policies
         from pg_class c
         join information_schema.columns col on col.table_name = c.relname and col.table_schema = 'public'
         left join pg_policy p on p.polrelid = c.oid
        where c.relkind = 'r' and c.relnamespace = 'public'::regnamespace and col.column_name = 'client_id'
        group by c.relname, c.relrowsecurity order by 1`,
    );
    // token_failures keys on the client id as sent (known or not): no client_id column, not a tenant's row.
    expect(tables.map((t) => t.relname)).to.have.members([...TENANT_TABLES]);
    for (const t of tables)
      expect({ table: t.relname, rls: t.relrowsecurity, policies: t.policies }).to.deep.equal({
        table: t.relname,
        rls: true,
        // Every role reaches the transaction's client; only the system role, every client (0027).
        policies: ['system_access:gha_system', 'tenant_isolation:-'],
      });
  });

  it('a statement without the setting sees no tenant rows in any tenant table, and writes none', async () => {
    const { a } = await twoTenants();
    const filled: string[] = [];
    for (const table of TENANT_TABLES) {
      const [owner] = await sql(`select count(*)::int as n from ${table}`);
      if (owner.n > 0) filled.push(table);
      const [row] = await bare<{ n: number }>(service, `select count(*)::int as n from ${table}`);
      expect({ table, n: row!.n }).to.deep.equal({ table, n: 0 });
    }
    expect(filled).to.include.members(['employees', 'dependents', 'users', 'policies', 'policy_members']);
    const updated = await bare<{ id: string }>(
      service,
      "update employees set department = 'x' where client_id = ? returning id",
      [a.clientId],
    );
    expect(updated).to.have.length(0);
    const insert = await bare(
      service,
      `insert into dependents (id, client_id, employee_id, name, relationship, date_of_birth, gender)
       values (?, ?, ?, 'Nobody', 'SPOUSE', '1990-01-01', 'MALE')`,
      [newId('dependent'), a.clientId, a.employee.id],
    ).catch((e: Error) => e);
    expect(String(insert)).to.match(RLS_REFUSED);
  });

  it("with client A's setting a statement that names no client sees A's rows only", async () => {
    const { a, b } = await twoTenants();
    const scope = TenantScope.of(service.em, a.clientId);
    // No client_id filter in these statements: the database alone narrows them.
    for (const table of ['employees', 'dependents', 'policies', 'policy_members', 'audit_events']) {
      const rows = await scope.sql<{ client_id: string }>(`select distinct client_id from ${table}`);
      expect({ table, clients: rows.map((r) => r.client_id) }).to.deep.equal({
        table,
        clients: [a.clientId],
      });
    }
    const [seen] = await scope.sql<{ n: number }>('select count(*)::int as n from employees where id = ?', [
      b.employee.id,
    ]);
    expect(seen!.n).to.equal(0);
    // The setting ended with the statement's transaction: the same (only) connection sees nothing now.
    const [after] = await bare<{ n: number }>(service, 'select count(*)::int as n from employees');
    expect(after!.n).to.equal(0);
  });

  it('lets every tenant read the platform partners and none write them; the system setting writes them', async () => {
    const { a, b } = await twoTenants();
    const [partner] = await sql(
      `select p.insurer_id, p.product_id, p.tpa_id, i.name from policies p join insurers i on i.id = p.insurer_id
        where p.id = ?`,
      [b.policy.id],
    );
    const tenant = TenantScope.of(service.em, a.clientId);
    // B's policy's partners, read under A's setting: partners are no tenant's.
    for (const [table, id] of [
      ['insurers', partner.insurer_id],
      ['products', partner.product_id],
      ['tpas', partner.tpa_id],
    ] as const) {
      const rows = await tenant.sql<{ id: string }>(`select id from ${table} where id = ?`, [id]);
      expect({ table, rows: rows.map((r) => r.id) }).to.deep.equal({ table, rows: [id] });
      const changed = await tenant.sql(`update ${table} set name = 'Taken' where id = ? returning id`, [id]);
      expect({ table, changed }).to.deep.equal({ table, changed: [] });
      const removed = await tenant.sql(`delete from ${table} where id = ? returning id`, [id]);
      expect({ table, removed }).to.deep.equal({ table, removed: [] });
    }
    const insert = await tenant
      .sql(`insert into tpas (id, code, name) values (?, ?, 'Intruder TPA')`, [
        newId('tpa'),
        `T-${newId('tpa')}`,
      ])
      .catch((e: Error) => e);
    expect(String(insert)).to.match(RLS_REFUSED);
    // Without any setting they are readable too (a policy's display names), and still not writable.
    const [bareRead] = await bare<{ n: number }>(
      service,
      'select count(*)::int as n from insurers where id = ?',
      [partner.insurer_id],
    );
    expect(bareRead!.n).to.equal(1);
    const [unchanged] = await sql('select name from insurers where id = ?', [partner.insurer_id]);
    expect(unchanged.name).to.equal(partner.name);
    const system = SystemScope.of(service.em);
    const renamed = await system.sql('update tpas set name = name where id = ? returning id', [
      partner.tpa_id,
    ]);
    expect(renamed).to.have.length(1);
    const partners = await sql(
      `select c.relname, c.relrowsecurity from pg_class c
        where c.relnamespace = 'public'::regnamespace and c.relname in (?) order by 1`,
      [[...PARTNER_TABLES]],
    );
    expect(partners.map((t) => [t.relname, t.relrowsecurity])).to.deep.equal([
      ['insurers', true],
      ['products', true],
      ['tpas', true],
    ]);
  });

  it("refuses a write of B's rows under A's setting, and leaves B's rows alone", async () => {
    const { a, b } = await twoTenants();
    const scope = TenantScope.of(service.em, a.clientId);
    const insert = await scope
      .sql(
        `insert into dependents (id, client_id, employee_id, name, relationship, date_of_birth, gender)
         values (?, ?, ?, 'Intruder', 'SPOUSE', '1990-01-01', 'MALE')`,
        [newId('dependent'), b.clientId, b.employee.id],
      )
      .catch((e: Error) => e);
    expect(String(insert)).to.match(RLS_REFUSED);
    // Moving A's own row to B is refused too (the policy's WITH CHECK).
    const move = await scope
      .sql('update dependents set client_id = ? where id = ?', [b.clientId, a.dependent.id])
      .catch((e: Error) => e);
    expect(String(move)).to.match(RLS_REFUSED);
    const touched = await scope.sql('update employees set department = ? where id = ? returning id', [
      'Taken',
      b.employee.id,
    ]);
    expect(touched).to.have.length(0);
    const gone = await scope.sql('delete from policy_members where client_id = ? returning id', [b.clientId]);
    expect(gone).to.have.length(0);
    const [bRows] = await sql(
      `select (select department from employees where id = ?) as department,
              (select count(*)::int from policy_members where client_id = ?) as members,
              (select count(*)::int from dependents where client_id = ?) as dependents`,
      [b.employee.id, b.clientId, b.clientId],
    );
    expect(bRows).to.deep.equal({ department: '', members: 2, dependents: 1 });
  });

  it('a system scope sees every client, and a tenant scope inside its transaction is narrowed to its client', async () => {
    const { a, b } = await twoTenants();
    const clients = (rows: { client_id: string }[]) => rows.map((r) => r.client_id);
    const ids = [a.clientId, b.clientId];
    const system = SystemScope.of(service.em);
    const all = await system.sql<{ client_id: string }>(
      'select distinct client_id from employees where client_id in (?)',
      [ids],
    );
    expect(clients(all)).to.have.members(ids);
    await system.transaction(async (tx) => {
      const tenant = TenantScope.of(tx.em, b.clientId);
      const narrowed = await tenant.sql<{ client_id: string }>(
        'select distinct client_id from employees where client_id in (?)',
        [ids],
      );
      expect(clients(narrowed)).to.deep.equal([b.clientId]);
      const again = await tx.sql<{ client_id: string }>(
        'select distinct client_id from employees where client_id in (?)',
        [ids],
      );
      expect(clients(again)).to.have.members(ids);
    });
  });

  it('a message of statements runs under the setting as one transaction: one answer each, a failure undoes it whole', async () => {
    const { a, b } = await twoTenants();
    const scope = TenantScope.of(service.em, a.clientId);
    const names = (clientId: string) => sql('select name from employees where client_id = ?', [clientId]);
    const [renamed, seen] = await scope.message([
      {
        query: `update employees set name = 'Message One' where client_id = ? returning id`,
        params: [a.clientId],
      },
      // Names no client: the setting alone narrows it, and it sees the update before it.
      {
        query: 'select name from employees where name = ? or client_id = ?',
        params: ['Message One', b.clientId],
      },
    ]);
    expect(renamed).to.deep.equal([{ id: a.employee.id }]);
    expect(seen).to.deep.equal([{ name: 'Message One' }]);

    const failed = await scope
      .message([
        { query: `update employees set name = 'Message Two' where client_id = ?`, params: [a.clientId] },
        { query: 'select 1 / 0', params: [] },
      ])
      .then(
        () => null,
        (err: Error) => err.message,
      );
    expect(failed).to.match(/division by zero/);
    expect(await names(a.clientId)).to.deep.equal([{ name: 'Message One' }]);
    expect(await names(b.clientId)).to.deep.equal([{ name: b.employee.name }]);
    // The pool's one connection goes back without the setting: a bare statement sees no tenant rows.
    expect(await bare(service, 'select id from employees where client_id = ?', [a.clientId])).to.deep.equal(
      [],
    );
  });

  it('entity queries of a scope run under its setting; on the bare EntityManager they find nothing', async () => {
    const { a } = await twoTenants();
    // The ORM's tenant filter off: only the database narrows these.
    const everyone = { filters: { [TENANT_FILTER]: false } };
    const scope = TenantScope.of(service.em, a.clientId);
    const found = await scope.entities((em) => em.find(DependentSchema, {}, everyone));
    expect(found.map((d) => d.id)).to.deep.equal([a.dependent.id]);
    const inTransaction = await scope.transaction(async (tx) => ({
      // Straight on the EntityManager, before any statement of the scope told the transaction: fails closed.
      untold: await tx.em.find(DependentSchema, {}, everyone),
      told: await tx.entities((em) => em.find(DependentSchema, {}, everyone)),
    }));
    expect(inTransaction.untold).to.deep.equal([]);
    expect(inTransaction.told.map((d) => d.id)).to.deep.equal([a.dependent.id]);
    expect(await service.em.fork().find(DependentSchema, {}, everyone)).to.deep.equal([]);
  });

  it('migrates fresh databases of the same cluster at once (the role exists; grants and policies per database)', async function () {
    this.timeout(120_000);
    const names = [0, 1].map((i) => `ghi_test_${stack().runId}_rls${i}`);
    const urls = await Promise.all(names.map((n) => ensureDatabase(stack().ownerDatabaseUrl, n)));
    // The run's own logins (roles and their passwords are the cluster's: another password would lock
    // the run's pools out).
    const logins = loginsOf([stack().databaseUrl, stack().systemDatabaseUrl]);
    const on = (login: string, database: string) => {
      const url = new URL(login);
      url.pathname = new URL(database).pathname;
      return url.toString();
    };
    try {
      await Promise.all(urls.map((url) => migrateDatabase(url, logins)));
      for (const url of urls) {
        const orm = await initOrm({
          databaseUrl: on(stack().databaseUrl, url),
          systemDatabaseUrl: on(stack().systemDatabaseUrl, url),
          poolMax: 1,
        });
        try {
          const [row] = await bare<{ user: string; n: number }>(
            orm,
            'select current_user as "user", count(*)::int as n from employees',
          );
          expect(row).to.deep.equal({ user: SERVICE_ROLE, n: 0 });
        } finally {
          await orm.close();
        }
      }
      const refused = await migrate(service).catch((e: Error) => e);
      expect(String(refused)).to.match(/owner/);
    } finally {
      await Promise.all(names.map((n) => dropDatabase(stack().ownerDatabaseUrl, n)));
    }
  });
});
