import Router from '@koa/router';
import Koa from 'koa';
import pg from 'pg';
import { presentEmployee } from '../../api/presenters/employee.js';
import { TenantScope } from '../../data/scope.js';
import { initOrm } from '../../db/orm.js';
import { profileQuery } from '../../domain/schemas/employees.js';
import { employeeProfile } from '../../usecases/employees.js';
import { createTokenService } from '../../api/auth/tokens.js';
import { membersQuery } from '../../data/members.js';
import { pageSql } from '../../data/paging.js';
import { policiesQuery } from '../../data/policies.js';
import { apiConfig, loadConfig, requireDatabaseUrls } from '../../config/index.js';
import { systemClock, today } from '../../domain/clock.js';
import { isCalendarDate } from '../../domain/dates.js';
import { SYSTEM_SETTING, TENANT_SETTING } from '../../db/roles.js';
import { markEndorsementWorkflowStarted } from '../../data/endorsements/endorsements.js';
import type { TenantScope as Scope } from '../../data/scope.js';
import type { Sql, Statement } from '../../data/sql.js';
import { EndorsementRefused } from '../../domain/endorsements/endorsement.js';
import { createTemporalClient } from '../../infra/temporal-client.js';
import { parseEndorsementRequest, type CreateEndorsementBody } from '../../api/schemas/endorsements.js';
import {
  createEndorsement,
  endorsementRules,
  workflowInput,
} from '../../usecases/endorsements/endorsements.js';
import { ENDORSEMENT_WORKFLOW, endorsementStartOptions } from '../../workflows/endorsement/contract.js';
import { inline } from './approval-statements.js';

/**
 * The bare peers of the benchmark: the same work as the service's routes with the least machinery —
 * plain Koa, plain `pg`, the same JWT check, the same SQL, no ORM, router, validation or presenters.
 */
const config = apiConfig(loadConfig());
/**
 * The peers do the same database work as the service: they run as its role under the same
 * row-level security policies (migrations 0009, 0027), the tenant's setting riding in front of each
 * statement in one message, values inlined, as data/row-security.ts sends them. `ownerPool` runs
 * the members page as the owner (DATABASE_OWNER_URL, given to the peers alone), where the policies do not apply, to show what they cost.
 */
const pool = new pg.Pool({ connectionString: config.DATABASE_URL, max: config.DATABASE_POOL_MAX });
const ownerPool = new pg.Pool({ connectionString: config.DATABASE_OWNER_URL, max: config.DATABASE_POOL_MAX });
const tokens = createTokenService({
  keys: config.JWT_SIGNING_KEYS,
  issuer: config.JWT_ISSUER,
  audience: config.JWT_AUDIENCE,
  clock: systemClock,
});

/** knex placeholders (`?`) to pg's numbered ones. */
const numbered = (sql: string) => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

/** The peers' values are strings, numbers and nulls only. */
const literal = (v: unknown): string =>
  v === null || v === undefined ? 'null' : typeof v === 'number' ? String(v) : pg.escapeLiteral(v as string);

/** The tenant's setting and the statement, its values inlined, in one message (one round trip). */
const asTenant = (clientId: string, sql: string, params: readonly unknown[] = []): string => {
  let n = 0;
  const statement = sql.replace(/\?/g, () => literal(params[n++]));
  return `select set_config('${TENANT_SETTING}', ${literal(clientId)}, true), set_config('${SYSTEM_SETTING}', 'off', true);\n${statement}`;
};

/** Rows of the last statement of a multi-statement message. */
async function tenantRows(clientId: string, sql: string, params: readonly unknown[]): Promise<unknown[]> {
  const results = (await pool.query(asTenant(clientId, sql, params))) as unknown as pg.QueryResult[];
  return results[results.length - 1]!.rows;
}

/** The same JWT check as the service (signature, kid, iss, aud, expiry), without the secret-version lookup. */
function clientOf(ctx: Koa.Context): string {
  const auth = tokens.verify(ctx.get('authorization').replace(/^Bearer /, ''));
  if (!auth) throw new Error('unauthorized');
  return auth.clientId;
}

const limitOf = (ctx: Koa.Context) => Number(ctx.query.limit ?? 10);

const routes: Record<string, (ctx: Koa.Context) => Promise<unknown>> = {
  '/hello': async () => 'hello',
  '/auth-hello': async (ctx) => ({ client_id: clientOf(ctx) }),
  '/policies': async (ctx) => {
    const clientId = clientOf(ctx);
    const { sql, params } = pageSql(
      policiesQuery(clientId, { limit: limitOf(ctx) } as never),
      null,
      false,
      limitOf(ctx) + 1,
    );
    return tenantRows(clientId, sql, params);
  },
  '/members': async (ctx) => {
    const clientId = clientOf(ctx);
    const q = membersQuery(clientId, String(ctx.query.policy_id), { today: today(systemClock) });
    const { sql, params } = pageSql(q, null, false, limitOf(ctx) + 1);
    return tenantRows(clientId, sql, params);
  },
  '/members-owner': async (ctx) => {
    const q = membersQuery(clientOf(ctx), String(ctx.query.policy_id), { today: today(systemClock) });
    const { sql, params } = pageSql(q, null, false, limitOf(ctx) + 1);
    return (await ownerPool.query(numbered(sql), params)).rows;
  },
  '/members-offset': async (ctx) => {
    const limit = limitOf(ctx);
    const offset = (Number(ctx.query.page ?? 1) - 1) * limit;
    const clientId = clientOf(ctx);
    return tenantRows(
      clientId,
      `select pm.*, e.email, e.date_of_birth, e.gender from policy_members pm join employees e on e.id = pm.employee_id
        where pm.client_id = ? and pm.policy_id = ?
        order by pm.employee_name_key, pm.employee_id, pm.member_rank, pm.id offset ? limit ?`,
      [clientId, ctx.query.policy_id, offset, limit],
    );
  },
  '/profile': async (ctx) => {
    const clientId = clientOf(ctx);
    const rows = await tenantRows(clientId, 'select * from employees where client_id = ? and id = ?', [
      clientId,
      ctx.query.employee_id,
    ]);
    return rows[0];
  },
  '/endorsements': createPeer,
  '/bulk-single': async (ctx) => bulk(ctx, 'single'),
  '/bulk-rows': async (ctx) => bulk(ctx, 'rows'),
};

/**
 * The create's peer: our create's statements and workflow start with the least machinery. The
 * statement builders are ours (data/endorsements, through usecases/endorsements createEndorsement and
 * the pure D7 decision), fed a scope whose `sql` is a plain `pg` pool sending each statement outside
 * a transaction with the tenant's settings in the same message, as data/row-security.ts sends them:
 * the candidates' read, the insert with its audit row, the start, the mark; three round trips to
 * PostgreSQL and one to Temporal, as ours. No Idempotency-Key is sent, so ours claims nothing either.
 * The start is the API's: the same client (connection, payload codec), workflow type and options, on
 * a queue no worker polls (`-idle`, the bare start's) so the bench's worker never runs these rows.
 */
const temporal = createTemporalClient(config);
await temporal.connection.ensureConnected();
const idleQueue = `${config.TEMPORAL_TASK_QUEUE}-idle`;
const rules = endorsementRules(config);

function pooledSql(clientId: string): Sql {
  // A prepared statement (data/sql.ts) goes as its text: the peer has no preparing pool.
  return async <T>(statement: string | Statement, values: readonly unknown[] = []): Promise<T[]> => {
    const { query, params } =
      typeof statement === 'string' ? { query: statement, params: values } : statement;
    const settings = `select set_config('${TENANT_SETTING}', ${literal(clientId)}, true), set_config('${SYSTEM_SETTING}', 'off', true)`;
    const results = (await pool.query(
      `${settings};\n${inline(query, params)}`,
    )) as unknown as pg.QueryResult[];
    return results[results.length - 1]!.rows as T[];
  };
}

async function createPeer(ctx: Koa.Context) {
  const auth = tokens.verify(ctx.get('authorization').replace(/^Bearer /, ''));
  if (!auth) throw new Error('unauthorized');
  const scope = { clientId: auth.clientId, sql: pooledSql(auth.clientId) } as unknown as Scope;
  const body = (ctx.request as unknown as { body: CreateEndorsementBody }).body;
  const created = await createEndorsement(
    scope,
    parseEndorsementRequest(body),
    { tokenId: auth.tokenId },
    today(systemClock),
    rules,
  );
  await temporal.workflow.start(
    ENDORSEMENT_WORKFLOW,
    endorsementStartOptions(workflowInput(created, config), idleQueue),
  );
  await markEndorsementWorkflowStarted(scope, created.id);
  return { endorsement_id: created.id, message: 'Endorsement created successfully', success: true };
}

/**
 * The hand-written peers of bulk update, doing our update's work (data/employees.ts
 * updateLastActive): the rows locked in id order, a date already in place writing nothing, one audit
 * row per changed row. `single`: one statement, its settings in the same message as ours (PostgreSQL
 * runs it as one transaction). `rows`: one statement per item (its update locks the row) in a transaction.
 * Both answer what ours answers (spec 4.8): a result per item in request order, an item that is not
 * a known id with a real date failing alone (checked by hand: the least machinery for the same checks).
 */
async function bulk(ctx: Koa.Context, mode: 'single' | 'rows') {
  const auth = tokens.verify(ctx.get('authorization').replace(/^Bearer /, ''));
  if (!auth) throw new Error('unauthorized');
  const { clientId, tokenId } = auth;
  const sent = (
    ctx.request as unknown as { body: { employees: { emp_id: unknown; last_active_date: unknown }[] } }
  ).body.employees;
  const valid = (i: {
    emp_id: unknown;
    last_active_date: unknown;
  }): i is { emp_id: string; last_active_date: string } =>
    typeof i.emp_id === 'string' &&
    i.emp_id.trim() !== '' &&
    typeof i.last_active_date === 'string' &&
    isCalendarDate(i.last_active_date);
  const items = sent.filter(valid);
  const answer = (known: Set<string>) => ({
    success: true,
    results: sent.map((i) =>
      !valid(i)
        ? { emp_id: String(i.emp_id), success: false, error: 'item: not an employee id with a real date' }
        : known.has(i.emp_id)
          ? { emp_id: i.emp_id, success: true }
          : { emp_id: i.emp_id, success: false, error: 'Employee Not Found' },
    ),
  });
  if (mode === 'single') {
    const values = items.map(() => '(?, ?::date)').join(', ');
    const locked = await tenantRows(
      clientId,
      `with v(id, d) as (values ${values}),
       locked as (
         select e.id, e.last_active_date from employees e
          where e.client_id = ? and e.id in (select id from v) order by e.id for update),
       changed as (
         update employees e set last_active_date = v.d, updated_at = now()
           from v join locked l on l.id = v.id and l.last_active_date is distinct from v.d
          where e.client_id = ? and e.id = v.id
          returning e.id),
       audited as (
         insert into audit_events (client_id, entity, entity_id, action, changed_fields, actor_token_id)
         select ?, 'employee', id, 'bulk_update', array['last_active_date'], ? from changed)
       select id from locked`,
      [...items.flatMap((i) => [i.emp_id, i.last_active_date]), clientId, clientId, clientId, tokenId],
    );
    return answer(new Set(locked.map((r) => (r as { id: string }).id)));
  }
  const conn = await pool.connect();
  try {
    await conn.query(`begin; ${asTenant(clientId, 'select 1')}`);
    const known = new Set<string>();
    for (const i of items) {
      const { rows } = await conn.query<{ id: string }>(
        `with found as (select id from employees where client_id = $2 and id = $3 for update),
         changed as (
           update employees set last_active_date = $1, updated_at = now()
            where client_id = $2 and id = $3 and last_active_date is distinct from $1::date returning id),
         audited as (
           insert into audit_events (client_id, entity, entity_id, action, changed_fields, actor_token_id)
           select $2, 'employee', id, 'bulk_update', array['last_active_date'], $4 from changed)
         select id from found`,
        [i.last_active_date, clientId, i.emp_id, tokenId],
      );
      for (const r of rows) known.add(r.id);
    }
    await conn.query('commit');
    return answer(known);
  } finally {
    conn.release();
  }
}

/**
 * The profile read's framework peer: bare Koa, @koa/router, the same zod schema and the same
 * MikroORM call (usecases/employees.ts employeeProfile on a TenantScope) and presenter as our
 * route, on a pool of the same size. Against it the route shows what our middleware adds
 * (request id, metrics, the error shape, the route table's checks).
 */
const orm = await initOrm({ ...requireDatabaseUrls(config), poolMax: config.DATABASE_POOL_MAX });
const router = new Router();
router.get('/orm/profile', async (ctx) => {
  const clientId = clientOf(ctx);
  const query = profileQuery.safeParse(ctx.query);
  if (!query.success) {
    ctx.status = 400;
    return;
  }
  const employee = await employeeProfile(TenantScope.of(orm.em.fork(), clientId), query.data.employee_id);
  if (!employee) {
    ctx.status = 404;
    return;
  }
  ctx.body = { payload: { employee: presentEmployee(employee), pending_exits: [], success: true } };
});

const app = new Koa();
app.use(async (ctx, next) => {
  if (ctx.path.startsWith('/orm/')) {
    try {
      return await next();
    } catch {
      ctx.status = 401;
      return;
    }
  }
  const handler = routes[ctx.path];
  if (!handler) {
    ctx.status = 404;
    return;
  }
  if (ctx.method !== 'GET') {
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
    (ctx.request as unknown as { body: unknown }).body = JSON.parse(Buffer.concat(chunks).toString() || '{}');
  }
  try {
    ctx.body = { payload: await handler(ctx) };
  } catch (err) {
    // A refused create (the bench's creates are all accepted) is counted, not mistaken for a pass.
    ctx.status = err instanceof EndorsementRefused ? 409 : 401;
  }
});
app.use(router.routes());
app.listen(config.PORT, '127.0.0.1');
// Exit cleanly on the stack's SIGTERM, so a CPU profile (CPU_PROFILE_DIR) is written for the peer too.
process.on('SIGTERM', () => process.exit(0));
