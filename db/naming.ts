import { UnderscoreNamingStrategy } from '@mikro-orm/core';

/**
 * PostgreSQL's own constraint names (`<table>_<columns>_fkey`, `_key`, `_check`), the ones the
 * migrations' SQL gets, so the entities name the same constraints the database holds.
 */
export class PostgresNamingStrategy extends UnderscoreNamingStrategy {
  override indexName(
    tableName: string,
    columns: string[],
    type: 'primary' | 'foreign' | 'unique' | 'index' | 'sequence' | 'check',
  ): string {
    if (type === 'foreign') return super.indexName(tableName, columns, 'fkey' as never);
    if (type === 'unique') return super.indexName(tableName, columns, 'key' as never);
    return super.indexName(tableName, columns, type);
  }
}
