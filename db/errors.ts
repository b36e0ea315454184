import { DriverException } from '@mikro-orm/core';

/**
 * A failed query's error carries the statement with its values inlined (MikroORM formats the
 * parameters into the SQL text, and knex prefixes the statement to the message), and some
 * PostgreSQL messages quote the offending value. Names, emails and dates of birth would reach the
 * logs and, through activity failures, the Temporal histories. These helpers keep what diagnoses
 * the failure (class, SQLSTATE, constraint, table) and drop the text that may hold data.
 */

interface DbFields {
  name?: unknown;
  code?: unknown;
  constraint?: unknown;
  table?: unknown;
  severity?: unknown;
}

/** A reason of plain words (no quotes, digits or colons), such as "Connection terminated unexpectedly". */
const PLAIN_REASON = /^[A-Za-z ,]{1,120}$/;

/** An error raised by PostgreSQL or by its driver on the way (MikroORM's DriverException, pg's DatabaseError). */
export function isDatabaseError(err: unknown): err is Error {
  if (!(err instanceof Error)) return false;
  const e = err as DbFields;
  return err instanceof DriverException || (typeof e.severity === 'string' && typeof e.code === 'string');
}

/** The error's diagnosis without the statement or any value: class, SQLSTATE, constraint, table, reason. */
export function describeDatabaseError(err: Error): string {
  const e = err as DbFields;
  const parts = [typeof e.code === 'string' ? `database error ${e.code}` : 'database error'];
  if (typeof e.constraint === 'string') parts.push(`constraint ${e.constraint}`);
  if (typeof e.table === 'string') parts.push(`table ${e.table}`);
  const reason = err.message.split(' - ').pop()?.trim() ?? '';
  if (PLAIN_REASON.test(reason)) parts.push(reason);
  return parts.join('; ');
}

/** The same failure as a new error (name and code kept, for retry and 503 decisions) without query text. */
export function withoutQueryText(err: Error): Error {
  const safe = new Error(describeDatabaseError(err));
  safe.name = err.name;
  const code = (err as DbFields).code;
  if (code !== undefined) Object.assign(safe, { code });
  const frames = (err.stack ?? '').split('\n').filter((line) => line.trim().startsWith('at '));
  safe.stack = [`${safe.name}: ${safe.message}`, ...frames].join('\n');
  return safe;
}

/** For log and failure paths: database errors made safe, anything else as it is. */
export function safeError(err: unknown): unknown {
  return isDatabaseError(err) ? withoutQueryText(err) : err;
}
