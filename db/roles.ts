/**
 * The PostgreSQL role the API, the worker and the operator commands run their statements as. The
 * migrations (run by the database owner) create it without LOGIN and grant it data access only: it
 * owns nothing, so it can neither change the schema nor turn row-level security off. Roles are
 * cluster-wide; the name is fixed so every database of a cluster (test runs, benches) shares one.
 */
export const SERVICE_ROLE = 'gha_app';

/** The per-transaction settings the row-level security policies read (migration 0009). */
export const TENANT_SETTING = 'app.client_id';
export const SYSTEM_SETTING = 'app.system';
