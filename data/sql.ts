/**
 * One statement, its rows typed by the caller; placeholders are `?`. Made by a scope
 * (data/row-security.ts): it runs inside the scope's transaction when there is one, with the
 * scope's row-level security settings in force.
 */
export type Sql = <T>(query: string, params?: readonly unknown[]) => Promise<T[]>;
