import type { SystemScope } from './scope.js';

/**
 * D4 (revised): successful token generations are limited per client; failed ones have their own
 * budgets per (client_id as sent, source address) and per source address, checked before any secret
 * hashing, for known and unknown ids alike. Every count is in PostgreSQL, shared by every instance.
 */
export interface FailureBudgets {
  perClientAndSource: number;
  perSource: number;
}

export const TOKEN_REQUEST_LIMIT = 100;
export const TOKEN_REQUEST_WINDOW_MS = 60 * 60 * 1000;

/** Advisory-lock namespaces (first key of the two-key form): successes per client, failures per source. */
const CLIENT_LOCK = 4101;
const SOURCE_LOCK = 4102;

export interface ClientCredentials {
  id: string;
  /** A client (tenant), or an insurer principal (D14: the insurer scopes only). */
  kind: PrincipalKind;
  secretHash: string;
  secretVersion: number;
  allowedScopes: string[];
}

export type PrincipalKind = 'client' | 'insurer';

export type Limited = { kind: 'limited'; retryAfterSeconds: number };

/** An attempt admitted to the secret check; it counts as a failure until `recordSuccess`. */
export type Attempt = Limited | { kind: 'admitted'; attemptId: string; client: ClientCredentials | null };

interface ClientRow {
  id: string;
  kind: PrincipalKind;
  secret_hash: string;
  secret_version: number;
  allowed_scopes: string[];
}

/**
 * The principal a token request names: a client, or an insurer principal whose only scopes are the
 * insurer's (ids differ by prefix, so at most one row). One statement for either. A revoked client or
 * insurer principal is no principal: its request answers exactly as an unknown id's (D18, no enumeration).
 */
const PRINCIPAL_SQL = `select id, 'client' as kind, secret_hash, secret_version, allowed_scopes from clients
   where id = ? and revoked_at is null
  union all
  select id, 'insurer', secret_hash, secret_version, array['insurer.decisions', 'insurer.endorsements']::text[]
    from insurer_principals where id = ? and revoked_at is null`;

/** Where each kind's issued tokens are counted (fixed names, never from input). */
const ISSUES = {
  client: { table: 'token_issues', column: 'client_id', insert: ', succeeded', value: ', true' },
  insurer: { table: 'insurer_token_issues', column: 'principal_id', insert: '', value: '' },
} as const;

/** Whole seconds until the oldest counted row leaves the window (at least 1). */
const secondsUntilFree = (oldest: Date, now: Date) =>
  Math.max(1, Math.ceil((oldest.getTime() + TOKEN_REQUEST_WINDOW_MS - now.getTime()) / 1000));

/**
 * Checks the source's failure budgets and, when admitted, records the attempt as a failure before the
 * secret is checked (so concurrent guesses cannot all pass a count of N-1). Race-free across instances:
 * a per-source advisory lock serialises count-then-insert. Known and unknown ids run the same
 * statements (timing), and the client row is read in the same transaction.
 */
export async function admitTokenAttempt(
  scope: SystemScope,
  clientKey: string,
  source: string,
  now: Date,
  budgets: FailureBudgets,
): Promise<Attempt> {
  const windowStart = new Date(now.getTime() - TOKEN_REQUEST_WINDOW_MS);
  return scope.transaction(async (tx) => {
    await tx.sql('set local synchronous_commit = off');
    await tx.sql('select pg_advisory_xact_lock(?, hashtext(?))', [SOURCE_LOCK, source]);
    await tx.sql('delete from token_failures where source = ? and created_at <= ?', [source, windowStart]);
    const [counts] = await tx.sql<{ pair: number; source: number; pair_oldest: Date; source_oldest: Date }>(
      `select count(*) filter (where client_key = ?)::int as pair, count(*)::int as source,
              min(created_at) filter (where client_key = ?) as pair_oldest, min(created_at) as source_oldest
         from token_failures where source = ?`,
      [clientKey, clientKey, source],
    );
    if (counts && counts.pair >= budgets.perClientAndSource) {
      return { kind: 'limited', retryAfterSeconds: secondsUntilFree(new Date(counts.pair_oldest), now) };
    }
    if (counts && counts.source >= budgets.perSource) {
      return { kind: 'limited', retryAfterSeconds: secondsUntilFree(new Date(counts.source_oldest), now) };
    }
    const [row] = await tx.sql<{ id: string }>(
      'insert into token_failures (client_key, source, created_at) values (?, ?, ?) returning id',
      [clientKey, source, now],
    );
    const [client] = await tx.sql<ClientRow>(PRINCIPAL_SQL, [clientKey, clientKey]);
    return {
      kind: 'admitted',
      attemptId: String(row!.id),
      client: client
        ? {
            id: client.id,
            kind: client.kind,
            secretHash: client.secret_hash,
            secretVersion: client.secret_version,
            allowedScopes: client.allowed_scopes,
          }
        : null,
    };
  });
}

/** The secret was right: the attempt is not a failure (a request refused for its scopes is neither). */
export async function forgetTokenAttempt(scope: SystemScope, attemptId: string): Promise<void> {
  await scope.sql('delete from token_failures where id = ?', [attemptId]);
}

/**
 * Counts a successful generation against the client's rolling hour, race-free across instances (a
 * per-client advisory lock around count-then-insert), and forgets the attempt's failure row in the
 * same transaction. Rows that have left the window are pruned here, keeping about the limit per client.
 * Idempotency: none needed; each call is one new token.
 */
export async function recordTokenIssue(
  scope: SystemScope,
  principal: { id: string; kind: PrincipalKind },
  attemptId: string,
  now: Date,
): Promise<Limited | { kind: 'recorded' }> {
  const windowStart = new Date(now.getTime() - TOKEN_REQUEST_WINDOW_MS);
  const { table, column, insert, value } = ISSUES[principal.kind];
  const id = principal.id;
  return scope.transaction(async (tx) => {
    await tx.sql('set local synchronous_commit = off');
    await tx.sql('delete from token_failures where id = ?', [attemptId]);
    await tx.sql('select pg_advisory_xact_lock(?, hashtext(?))', [CLIENT_LOCK, id]);
    await tx.sql(`delete from ${table} where ${column} = ? and created_at <= ?`, [id, windowStart]);
    const [counts] = await tx.sql<{ recent: number; oldest: Date }>(
      `select count(*)::int as recent, min(created_at) as oldest from ${table} where ${column} = ?`,
      [id],
    );
    if (counts && counts.recent >= TOKEN_REQUEST_LIMIT) {
      return { kind: 'limited', retryAfterSeconds: secondsUntilFree(new Date(counts.oldest), now) };
    }
    await tx.sql(`insert into ${table} (${column}${insert}, created_at) values (?${value}, ?)`, [id, now]);
    return { kind: 'recorded' };
  });
}
