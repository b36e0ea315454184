import { isCalendarDate } from '../domain/dates.js';
import type { Sql } from './sql.js';

/**
 * Keyset pages (D5), one round trip each (a second when a cursor's own row has left the list). A
 * cursor is the sort key of one row, sealed by a CursorCodec the caller supplies (api/paging.ts:
 * opaque, tamper-evident, bound to one list of one tenant).
 */

/**
 * SQL types a sort-key column may have; pg hands int8 back as a string, the others as written. A
 * `timestamptz` key is read back as ISO 8601 text with microseconds (a JavaScript Date would drop
 * them, and the next page would repeat or skip rows of one millisecond).
 */
export type KeyType = 'text' | 'date' | 'smallint' | 'integer' | 'bigint' | 'timestamptz';
export type KeyValue = string | number;
export interface KeyColumn {
  /** A non-null column expression, e.g. `pm.employee_name`. */
  sql: string;
  type: KeyType;
}

const VALID_KEY: Record<KeyType, (v: unknown) => boolean> = {
  text: (v) => typeof v === 'string' && v.length <= 1000,
  date: (v) => typeof v === 'string' && isCalendarDate(v),
  smallint: (v) => Number.isSafeInteger(v),
  integer: (v) => Number.isSafeInteger(v),
  bigint: (v) => typeof v === 'string' && /^-?[0-9]{1,19}$/.test(v),
  timestamptz: (v) => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/.test(v),
};

/** A key column as its cursor holds it (see KeyType). */
const keyOut = (k: KeyColumn): string =>
  k.type === 'timestamptz' ? `to_char(${k.sql} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')` : k.sql;

export interface CursorCodec {
  encode(scope: string, key: readonly KeyValue[]): string;
  /** The key sealed in `cursor` for `scope`, or null when it is not a cursor of ours for that scope. */
  decode(scope: string, cursor: string): unknown[] | null;
}

export interface PageRequest {
  limit: number;
  start_cursor?: string | undefined;
  last_cursor?: string | undefined;
}

/** A cursor that is not one of this list's (another list, another tenant, altered): the client's fault. */
export class InvalidCursor extends Error {
  constructor(readonly param: 'start_cursor' | 'last_cursor') {
    super(`${param}: is not a valid cursor for this list`);
  }
}

export interface KeysetQuery {
  /** Names the list and its tenant (e.g. `members:<client>:<policy>`); cursors only work within it. */
  scope: string;
  /** Tables the filters need, e.g. `policy_members pm`. */
  from: string;
  /** The filters; always narrow to the scope: the tenant's client_id (D1), or an insurer's policies. */
  where: string;
  params: readonly unknown[];
  /** Columns of a page row. */
  select: string;
  /** Joins needed only to present page rows (display names); run for the page rows alone. */
  join?: string;
  /** Sort key, all columns in one direction, unique as a whole; backed by an index in that order. */
  key: readonly KeyColumn[];
  descending?: boolean;
  /** Scalar values computed once alongside the page, e.g. `{ policy_found: 'exists(…)' }`; names unlike any page column. */
  extra?: { columns: Record<string, string>; params: readonly unknown[] };
  /**
   * The rows under `where` counted some other way (a scalar expression): a count kept as rows are
   * written, where reading every row on each page would grow with the list. Equal to the count.
   */
  count?: { sql: string; params: readonly unknown[] };
}

export interface Page<R> {
  rows: R[];
  total_count: number;
  start_cursor: string;
  end_cursor: string;
  has_previous: boolean;
  has_next: boolean;
  /** The values of `extra`. */
  extra: Record<string, unknown>;
}

/** `%term%` for ILIKE with the pattern characters of the term taken literally. */
export const contains = (term: string): string => `%${term.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;

type Direction = 'after' | 'before' | 'atOrBefore' | 'atOrAfter';
const ASC_OP: Record<Direction, string> = { after: '>', before: '<', atOrBefore: '<=', atOrAfter: '>=' };
const DESC_OP: Record<Direction, string> = { after: '<', before: '>', atOrBefore: '>=', atOrAfter: '<=' };

function decodeKey(codec: CursorCodec, q: KeysetQuery, cursor: string, param: InvalidCursor['param']) {
  const key = codec.decode(q.scope, cursor);
  if (key?.length !== q.key.length || !q.key.every((col, i) => VALID_KEY[col.type](key[i]))) {
    throw new InvalidCursor(param);
  }
  return key;
}

/**
 * One page, usually in one round trip: the count under the filters and, from a cursor, the cursor's
 * own row and limit+1 rows after it, all read through the key's index. The cursor's row tells
 * that the far side of the cursor holds a row (exact has_previous/has_next); when it has left the
 * list since the cursor was given (an insurer decided the endorsement, a member left the policy),
 * a second statement asks whether any other row lies there.
 * `q.where` narrows to the scope's rows: a TenantScope's client, an InsurerScope's insurer (the list
 * builders in data/ write it so).
 */
export async function readPage<R extends object>(
  scope: { sql: Sql },
  codec: CursorCodec,
  q: KeysetQuery,
  req: PageRequest,
): Promise<Page<R>> {
  const backward = Boolean(req.last_cursor);
  const cursor = req.last_cursor ?? req.start_cursor;
  const key = cursor ? decodeKey(codec, q, cursor, backward ? 'last_cursor' : 'start_cursor') : null;
  const { sql, params } = pageSql(q, key, backward, req.limit + 1);
  const result = await scope.sql<Record<string, unknown>>(sql, params);
  const found = result.filter((row) => row._k0 !== null);
  // The rows come in the list's order: the cursor's own row, when present, is the nearest to the
  // cursor, first going forward and last going backward.
  const edge = backward ? found.length - 1 : 0;
  const atCursor = found[edge]?._at === true;
  if (atCursor) found.splice(edge, 1);
  const farSide = key !== null && (atCursor || (await farSideHolds(scope, q, key, backward)));
  return assemble<R>(codec, q, req.limit, backward, result[0]!, found, farSide);
}

const keyTuple = (q: KeysetQuery) => `(${q.key.map((k) => k.sql).join(', ')})`;
const keyMarks = (q: KeysetQuery) => `(${q.key.map((k) => `?::${k.type}`).join(', ')})`;
const keyOrder = (q: KeysetQuery, cols: readonly string[], reverse: boolean) =>
  cols.map((c) => `${c} ${Boolean(q.descending) !== reverse ? 'desc' : 'asc'}`).join(', ');

/**
 * Whether a row of the list lies at the cursor or beyond it, away from the direction of travel: the
 * nearest such row read through the key's index (an `exists`, whose order and limit PostgreSQL drops,
 * may be planned as a scan of the table from its start through every row ahead of the list's).
 */
async function farSideHolds(
  scope: { sql: Sql },
  q: KeysetQuery,
  key: unknown[],
  backward: boolean,
): Promise<boolean> {
  const ops = q.descending ? DESC_OP : ASC_OP;
  const order = keyOrder(
    q,
    q.key.map((k) => k.sql),
    !backward,
  );
  const rows = await scope.sql(
    `select true as found from ${q.from} where ${q.where}
       and ${keyTuple(q)} ${ops[backward ? 'atOrAfter' : 'atOrBefore']} ${keyMarks(q)}
     order by ${order} limit 1`,
    [...q.params, ...key],
  );
  return rows.length > 0;
}

/**
 * `m` is one row of per-request values (count, extras); `r` the page, joined laterally so an empty
 * page still answers the count. Key columns come back as _k0.._kn to build cursors from. From a
 * cursor the page reads from the cursor's own row on (one row more than `take`), `_at` marking it.
 */
export function pageSql(q: KeysetQuery, key: unknown[] | null, backward: boolean, take: number) {
  const ops = q.descending ? DESC_OP : ASC_OP;
  const tuple = keyTuple(q);
  const marks = keyMarks(q);
  const extras = Object.entries(q.extra?.columns ?? {}).map(([name, expr]) => `, ${expr} as ${name}`);
  const count = q.count ? `(${q.count.sql})` : `(select count(*) from ${q.from} where ${q.where})`;
  const pageOrder = keyOrder(
    q,
    q.key.map((k) => k.sql),
    backward,
  );
  const cut = key ? `and ${tuple} ${ops[backward ? 'atOrBefore' : 'atOrAfter']} ${marks}` : '';
  const keyColumns = q.key.map((k, i) => `${keyOut(k)} as _k${i}`).join(', ');
  const at = key ? `, ${tuple} = ${marks} as _at` : '';
  const finalOrder = keyOrder(
    q,
    q.key.map((_, i) => `r._k${i}`),
    false,
  );
  const sql = `select m.*, r.*
    from (select ${count} as _total ${extras.join('')}) m
    left join lateral (
      select ${q.select}, ${keyColumns}${at} from ${q.from} ${q.join ?? ''}
      where ${q.where} ${cut} order by ${pageOrder} limit ?
    ) r on true
    order by ${finalOrder}`;
  const params = [
    ...(q.count?.params ?? q.params),
    ...(q.extra?.params ?? []),
    ...(key ?? []),
    ...q.params,
    ...(key ?? []),
    key ? take + 1 : take,
  ];
  return { sql, params };
}

function assemble<R>(
  codec: CursorCodec,
  q: KeysetQuery,
  limit: number,
  backward: boolean,
  meta: Record<string, unknown>,
  rows: Record<string, unknown>[],
  farSide: boolean,
): Page<R> {
  const keyNames = q.key.map((_, i) => `_k${i}`);
  const extraNames = Object.keys(q.extra?.columns ?? {});
  const internal = new Set(['_total', '_at', ...keyNames, ...extraNames]);
  let found = rows;
  const more = found.length > limit;
  // The extra row lies beyond the page in the direction of travel: before it when going backward.
  if (more) found = backward ? found.slice(found.length - limit) : found.slice(0, limit);
  const cursorOf = (row: Record<string, unknown> | undefined) =>
    row
      ? codec.encode(
          q.scope,
          keyNames.map((k) => row[k] as KeyValue),
        )
      : '';
  return {
    rows: found.map((row) => omit(row, internal)) as R[],
    total_count: Number(meta._total),
    start_cursor: cursorOf(found[0]),
    end_cursor: cursorOf(found[found.length - 1]),
    has_previous: backward ? more : farSide,
    has_next: backward ? farSide : more,
    extra: Object.fromEntries(extraNames.map((n) => [n, meta[n]])),
  };
}

/** A copy without the internal columns: built key by key (a `delete` would turn it into a slow dictionary). */
function omit(row: Record<string, unknown>, names: ReadonlySet<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name in row) if (!names.has(name)) out[name] = row[name];
  return out;
}
