import { Migration } from '@mikro-orm/migrations';
import { policy } from './0009-row-level-security.js';

/** The census tables hold one tenant's rows each: row-level security as on every tenant table (0009). */
export const CENSUS_TENANT_TABLES = ['census_batches', 'census_batch_rows'] as const;

export class Migration0018CensusRowSecurity extends Migration {
  override up(): void {
    this.addSql(CENSUS_TENANT_TABLES.map(policy).join('\n'));
  }

  override down(): void {
    this.addSql(
      CENSUS_TENANT_TABLES.map(
        (t) => `drop policy tenant_isolation on ${t};\nalter table ${t} disable row level security;`,
      ).join('\n'),
    );
  }
}
