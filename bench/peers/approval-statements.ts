import pg from 'pg';
import * as approval from '../../data/endorsements/approval.js';
import { endLapsedCoverOf } from '../../data/member-cover.js';
import type { SystemScope, TenantScope } from '../../data/scope.js';
import type { Sql, SqlMessage, Statement } from '../../data/sql.js';
import { SYSTEM_SETTING, TENANT_SETTING } from '../../db/roles.js';
import { lockAccountBeforeRefund, settleApprovedEndorsement } from '../../usecases/cd-account/account.js';

/**
 * The decisions peer's database half (bench/decisions.ts): the statements of our approval
 * transaction (usecases/endorsements/endorsements.ts applyEndorsementApproval), their very texts and order, sent
 * on a plain `pg` connection: no ORM, no entity manager, no activity. As data/row-security.ts does,
 * the first statement of each role in the transaction carries its settings in the same message and
 * values are inlined. The statement builders are ours (data/), fed a scope whose `sql` is this
 * connection's, so the peer can never drift from what the approval sends.
 */

/** Values inlined as MikroORM inlines them: strings quoted, arrays as lists, null as null. */
function literal(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return v.map(literal).join(', ');
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (v instanceof Date) return pg.escapeLiteral(v.toISOString());
  if (typeof v === 'string') return pg.escapeLiteral(v);
  throw new Error(`the approval peer inlines no ${typeof v}`);
}

/** A statement's `?` placeholders replaced by its values, inlined as above. */
export const inline = (sql: string, params: readonly unknown[]) => {
  let n = 0;
  return sql.replace(/\?/g, () => literal(params[n++]));
};

/** A scope's `message` on the connection: its statements (after the settings, when not yet told) in one query. */
function scopedPgMessage(
  conn: pg.ClientBase,
  told: { key: string | null },
  clientId: string | null,
): SqlMessage {
  const key = clientId ?? ' system';
  const settings = `select set_config('${TENANT_SETTING}', ${literal(clientId ?? '')}, true), set_config('${SYSTEM_SETTING}', '${clientId ? 'off' : 'on'}', true)`;
  return async (statements) => {
    const texts = statements.map((s) => inline(s.query, s.params));
    const tell = told.key !== key;
    if (tell) texts.unshift(settings);
    const results = (await conn.query(texts.join(';\n'))) as unknown as pg.QueryResult | pg.QueryResult[];
    told.key = key;
    const answers = (Array.isArray(results) ? results : [results]).map((r) => r.rows as unknown[]);
    return tell ? answers.slice(1) : answers;
  };
}

/** The scope's `sql` and `message` on the connection, as data/row-security.ts tells a transaction. */
function scopedPg(conn: pg.ClientBase, told: { key: string | null }, clientId: string | null) {
  const message = scopedPgMessage(conn, told, clientId);
  // A prepared statement (data/sql.ts) goes as its text: the peer has no preparing pool.
  const sql: Sql = async <T>(query: string | Statement, params: readonly unknown[] = []): Promise<T[]> =>
    (await message([typeof query === 'string' ? { query, params } : query]))[0] as T[];
  return { clientId, sql, message };
}

/** The approval transaction of one endorsement, as applyEndorsementApproval runs it. */
export async function peerApproval(
  pool: pg.Pool,
  id: string,
  ids: approval.InsurerIds,
  today: string,
): Promise<'applied' | 'gone' | 'conflict'> {
  const conn = await pool.connect();
  try {
    await conn.query('begin');
    const told = { key: null as string | null };
    const system = scopedPg(conn, told, null) as unknown as SystemScope;
    const e = await approval.lockEndorsementForApproval(system, id);
    let outcome: 'applied' | 'gone' | 'conflict' = 'applied';
    if (!e) outcome = 'gone';
    else if (e.status !== 'ENDORSEMENT_STATUS_SENT_TO_INSURER') outcome = 'conflict';
    else {
      const tenant = scopedPg(conn, told, e.client_id) as TenantScope;
      await lockAccountBeforeRefund(tenant, e);
      if (e.type === 'ENDORSEMENT_TYPE_DELETION') await approval.endMemberCover(tenant, e);
      await endLapsedCoverOf(tenant, e.policy_id, e.employee_id, today);
      if (e.type === 'ENDORSEMENT_TYPE_ADDITION') await approval.enrolMembers(tenant, e, ids);
      else if (e.type === 'ENDORSEMENT_TYPE_REINSTATEMENT') await approval.restoreMemberCover(tenant, e);
      else if (e.type === 'ENDORSEMENT_TYPE_MODIFICATION') await approval.changeMemberSumInsured(tenant, e);
      await approval.markEndorsementApproved(tenant, e, ids);
      await settleApprovedEndorsement(tenant, e);
    }
    await conn.query('commit');
    return outcome;
  } catch (err) {
    await conn.query('rollback').catch(() => undefined);
    throw err;
  } finally {
    conn.release();
  }
}
