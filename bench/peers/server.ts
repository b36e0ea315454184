import Koa from 'koa';
import pg from 'pg';
import { createTokenService } from '../../api/auth/tokens.js';
import { membersQuery } from '../../data/members.js';
import { pageSql } from '../../data/paging.js';
import { policiesQuery } from '../../data/policies.js';
import { apiConfig, loadConfig } from '../../config/index.js';
import { systemClock, today } from '../../domain/clock.js';
import { SYSTEM_SETTING, TENANT_SETTING } from '../../db/roles.js';

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
  '/bulk-single': async (ctx) => bulk(ctx, 'single'),
  '/bulk-rows': async (ctx) => bulk(ctx, 'rows'),
};

/** The hand-written peers of bulk update: one UPDATE … FROM (VALUES …), or one UPDATE per row. */
async function bulk(ctx: Koa.Context, mode: 'single' | 'rows') {
  const clientId = clientOf(ctx);
  const items = (
    ctx.request as unknown as { body: { employees: { emp_id: string; last_active_date: string }[] } }
  ).body.employees;
  const conn = await pool.connect();
  try {
    await conn.query(`begin; ${asTenant(clientId, 'select 1')}`);
    if (mode === 'single') {
      const values = items.map((_, i) => `($${i * 2 + 2}, $${i * 2 + 3}::date)`).join(', ');
      await conn.query(
        `update employees e set last_active_date = v.d, updated_at = now() from (values ${values}) v(id, d) where e.client_id = $1 and e.id = v.id`,
        [clientId, ...items.flatMap((i) => [i.emp_id, i.last_active_date])],
      );
    } else {
      for (const i of items) {
        await conn.query(
          'update employees set last_active_date = $1, updated_at = now() where client_id = $2 and id = $3',
          [i.last_active_date, clientId, i.emp_id],
        );
      }
    }
    await conn.query('commit');
  } finally {
    conn.release();
  }
  return { success: true };
}

const app = new Koa();
app.use(async (ctx) => {
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
  } catch {
    ctx.status = 401;
  }
});
app.listen(config.PORT, '127.0.0.1');
// Exit cleanly on the stack's SIGTERM, so a CPU profile (CPU_PROFILE_DIR) is written for the peer too.
process.on('SIGTERM', () => process.exit(0));
