import { expect } from 'chai';
import pg from 'pg';
import { SystemScope, TenantScope } from '../../data/scope.js';
import { initOrm } from '../../db/orm.js';
import { SERVICE_ROLE, SYSTEM_ROLE } from '../../db/roles.js';
import { makeClient, makeEmployee, sql } from '../support/factories.js';
import { stack } from '../support/stack.js';

/**
 * The service's logins as an attacker with one injected statement would use them: a plain
 * connection logged in as the API's and the worker's role (DATABASE_URL) or the system work's
 * (DATABASE_SYSTEM_URL), sending whatever it likes (docs/security/database-roles.md).
 */
async function connectAs<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const failure = (promise: Promise<unknown>): Promise<string> =>
  promise.then(
    () => 'succeeded',
    (err: Error) => err.message,
  );

/** Two clients with an employee each, written by the owner. */
async function twoClients(): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < 2; i++) {
    const { clientId } = await makeClient();
    await makeEmployee(clientId);
    ids.push(clientId);
  }
  return ids;
}

const countEmployees = async (client: pg.Client, ids: string[]): Promise<number> => {
  const { rows } = await client.query<{ n: number }>(
    'select count(*)::int as n from employees where client_id = any($1)',
    [ids],
  );
  return rows[0]!.n;
};

describe('data: database roles (defence in depth)', () => {
  let owner: string;

  before(async () => {
    const [row] = await sql("select tableowner from pg_tables where tablename = 'employees'");
    owner = row.tableowner as string;
  });

  it('logs the service in as its own role: RESET ROLE and SET ROLE reach no owner', async () => {
    const ids = await twoClients();
    await connectAs(stack().databaseUrl, async (client) => {
      await client.query('reset role');
      const { rows } = await client.query('select current_user as "current", session_user as "session"');
      expect(rows[0]).to.deep.equal({ current: SERVICE_ROLE, session: SERVICE_ROLE });
      expect(await failure(client.query(`set role ${owner}`))).to.match(/permission denied to set role/);
      expect(await failure(client.query(`set role ${SYSTEM_ROLE}`))).to.match(
        /permission denied to set role/,
      );
      expect(await failure(client.query('alter table employees disable row level security'))).to.match(
        /must be owner/,
      );
      expect(await failure(client.query(`set session authorization ${owner}`))).to.match(/permission denied/);
      const again = await client.query('select current_user as "current"');
      expect(again.rows[0]).to.deep.equal({ current: SERVICE_ROLE });
      // Without a client's setting the rows stay out of reach.
      expect(await countEmployees(client, ids)).to.equal(0);
    });
  });

  it('opens nothing to the service role that sets the old system switch, in a session or a transaction', async () => {
    const ids = await twoClients();
    await connectAs(stack().databaseUrl, async (client) => {
      await client.query("set app.system = 'on'");
      expect(await countEmployees(client, ids)).to.equal(0);
      await client.query('begin');
      await client.query("select set_config('app.system', 'on', true)");
      expect(await countEmployees(client, ids)).to.equal(0);
      const updated = await client.query(
        "update employees set department = 'Taken' where client_id = any($1) returning id",
        [ids],
      );
      expect(updated.rows).to.deep.equal([]);
      await client.query('rollback');
      // One client's own setting still reaches that client's rows, and only them.
      await client.query('begin');
      await client.query("select set_config('app.client_id', $1, true)", [ids[0]]);
      expect(await countEmployees(client, ids)).to.equal(1);
      await client.query('rollback');
    });
    const [untouched] = await sql(
      "select count(*)::int as n from employees where client_id in (?) and department = 'Taken'",
      [ids],
    );
    expect(untouched.n).to.equal(0);
  });

  it('gives every client to the system role only in a transaction that says so, and no owner either', async () => {
    const ids = await twoClients();
    await connectAs(stack().systemDatabaseUrl, async (client) => {
      const { rows } = await client.query<{ rolsuper: boolean; rolbypassrls: boolean }>(
        'select rolsuper, rolbypassrls from pg_roles where rolname = current_user',
      );
      expect(rows[0]).to.deep.equal({ rolsuper: false, rolbypassrls: false });
      expect(await countEmployees(client, ids)).to.equal(0);
      await client.query('begin');
      await client.query("select set_config('app.system', 'on', true)");
      expect(await countEmployees(client, ids)).to.equal(2);
      await client.query('rollback');
      await client.query('reset role');
      expect(await failure(client.query(`set role ${owner}`))).to.match(/permission denied to set role/);
      expect(await failure(client.query('select 1 from mikro_orm_migrations'))).to.match(/permission denied/);
    });
  });

  it('runs a SystemScope on the system pool and a TenantScope on the service pool', async () => {
    const [a] = await twoClients();
    const em = stack().serviceOrm.em;
    const who = 'select current_user as "user", session_user as "session"';
    expect(await SystemScope.of(em).sql(who)).to.deep.equal([{ user: SYSTEM_ROLE, session: SYSTEM_ROLE }]);
    expect(await TenantScope.of(em, a).sql(who)).to.deep.equal([
      { user: SERVICE_ROLE, session: SERVICE_ROLE },
    ]);
  });

  it('stops a service whose DATABASE_URL is the owner, or whose DATABASE_SYSTEM_URL is the service role', async () => {
    const asOwner = await failure(
      initOrm({
        databaseUrl: stack().ownerDatabaseUrl,
        systemDatabaseUrl: stack().systemDatabaseUrl,
        poolMax: 1,
      }),
    );
    expect(asOwner).to.match(
      /^DATABASE_URL logs in as \w+, a superuser or BYPASSRLS role: it must log in as gha_app/,
    );
    const systemAsService = await failure(
      initOrm({ databaseUrl: stack().databaseUrl, systemDatabaseUrl: stack().databaseUrl, poolMax: 1 }),
    );
    expect(systemAsService).to.match(
      /^DATABASE_SYSTEM_URL logs in as gha_app, neither gha_system nor a member of it: it must log in as gha_system/,
    );
  });

  it('keeps the logins’ passwords as SCRAM verifiers, set by the owner', async () => {
    const rows = await sql(
      'select rolname, rolcanlogin, left(rolpassword, 14) as kind from pg_authid where rolname in (?, ?) order by 1',
      [SERVICE_ROLE, SYSTEM_ROLE],
    );
    expect(rows).to.deep.equal([
      { rolname: SERVICE_ROLE, rolcanlogin: true, kind: 'SCRAM-SHA-256$' },
      { rolname: SYSTEM_ROLE, rolcanlogin: true, kind: 'SCRAM-SHA-256$' },
    ]);
  });
});
