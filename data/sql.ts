import { registerPrepared } from '../db/prepared.js';
import { OPEN_ENDORSEMENT_STATUSES } from '../domain/enums.js';

/**
 * One statement, its rows typed by the caller; placeholders are `?`. Made by a scope
 * (data/row-security.ts): it runs inside the scope's transaction when there is one, with the
 * scope's row-level security settings in force.
 */
export type Sql = <T>(query: string | Statement, params?: readonly unknown[]) => Promise<T[]>;

/** A statement not yet sent: its text (placeholders `?`) and its values. */
export interface Statement {
  query: string;
  params: readonly unknown[];
  /** The name it is prepared under (`prepared`): sent as `EXECUTE name(values)` where the pool prepares. */
  prepared?: string;
}

/**
 * A statement prepared on the service's connections (db/prepared.ts): registered under `name` when
 * its module loads, so its text must not depend on the call (only its values do). Each value is one
 * placeholder `?` (no lists), typed by its use in the text or by a cast, as PREPARE needs. Returns
 * the statement with the given values, sent by name where the pool prepares and as text elsewhere.
 */
export function prepared(name: string, query: string): (params: readonly unknown[]) => Statement {
  if (query.includes('??')) throw new Error(`prepared statement ${name}: no identifier placeholders`);
  let n = 0;
  registerPrepared(
    name,
    query.replace(/\?/g, () => `$${++n}`),
  );
  const arity = n;
  return (params) => {
    if (params.length !== arity)
      throw new Error(`prepared statement ${name}: ${arity} values, ${params.length} given`);
    return { query, params, prepared: name };
  };
}

/**
 * Statements sent as ONE message (data/row-security.ts), the rows of each in order. Outside a
 * transaction PostgreSQL runs the message as one transaction of its own: a lock its first statement
 * takes is held while the database runs the rest and released at their end, never across a round
 * trip to a busy client. Inside the scope's transaction the statements join it.
 */
export type SqlMessage = (statements: readonly Statement[]) => Promise<unknown[][]>;

/**
 * D7's open statuses as an SQL literal list, derived from the enum. A literal (not parameters) so
 * that `on conflict ... where status in ...` and lookups match the partial unique index
 * endorsements_one_open, whose predicate is this same list.
 */
export const OPEN_STATUS_SQL = `(${OPEN_ENDORSEMENT_STATUSES.map((s) => `'${s}'`).join(', ')})`;
