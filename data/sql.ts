import { OPEN_ENDORSEMENT_STATUSES } from '../domain/enums.js';

/**
 * One statement, its rows typed by the caller; placeholders are `?`. Made by a scope
 * (data/row-security.ts): it runs inside the scope's transaction when there is one, with the
 * scope's row-level security settings in force.
 */
export type Sql = <T>(query: string, params?: readonly unknown[]) => Promise<T[]>;

/** A statement not yet sent: its text (placeholders `?`) and its values. */
export interface Statement {
  query: string;
  params: readonly unknown[];
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
