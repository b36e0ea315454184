import { createHash } from 'node:crypto';

/**
 * The PostgreSQL role the API, the worker and the operator commands log in as (DATABASE_URL). The
 * migrations (run by the database owner, DATABASE_OWNER_URL) create it and grant it data access
 * only: it owns nothing, is no superuser and is a member of no other role, so it can neither change
 * the schema, nor turn row-level security off, nor `SET ROLE` to anyone who could. Roles are
 * cluster-wide; the name is fixed so every database of a cluster (test runs, benches) shares one.
 */
export const SERVICE_ROLE = 'gha_app';

/**
 * The role of work that crosses tenants on purpose (data/scope.ts SystemScope: reconcilers,
 * cut-offs, sweepers, authentication), logged in on a pool of its own (DATABASE_SYSTEM_URL). Only
 * this role's transactions may say `app.system = on` and see every client's rows (migration 0027);
 * the same setting from the service role opens nothing.
 */
export const SYSTEM_ROLE = 'gha_system';

/** The per-transaction settings the row-level security policies read (migrations 0009, 0027). */
export const TENANT_SETTING = 'app.client_id';
export const SYSTEM_SETTING = 'app.system';

/** The login roles the owner provisions (LOGIN and password): the service's and the system work's. */
export const LOGIN_ROLES = [SERVICE_ROLE, SYSTEM_ROLE] as const;
export type LoginRole = (typeof LOGIN_ROLES)[number];

/** `serverUrl` (any login on the server and database) with `role` and `password` as its login. */
export function loginUrl(serverUrl: string, role: LoginRole, password: string): string {
  const url = new URL(serverUrl);
  url.username = role;
  url.password = encodeURIComponent(password);
  return url.toString();
}

/**
 * A role's password derived from a secret the caller already holds (the owner's URL in the tests and
 * benches): the same for every run on one server, so concurrent runs sharing a cluster-wide role
 * never change each other's password, and never a constant in the source.
 */
export function derivedPassword(secret: string, role: LoginRole): string {
  return createHash('sha256').update(`${role}\0${secret}`).digest('hex');
}

/**
 * The service's two logins on the database of `ownerUrl`, their passwords derived from `secret` (the
 * tests and benches, which provision them with db/orm.ts provisionLogins after migrating).
 */
export function derivedLogins(
  ownerUrl: string,
  secret: string,
): { databaseUrl: string; systemDatabaseUrl: string } {
  return {
    databaseUrl: loginUrl(ownerUrl, SERVICE_ROLE, derivedPassword(secret, SERVICE_ROLE)),
    systemDatabaseUrl: loginUrl(ownerUrl, SYSTEM_ROLE, derivedPassword(secret, SYSTEM_ROLE)),
  };
}
