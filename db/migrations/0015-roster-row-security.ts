import { Migration } from '@mikro-orm/migrations';
import { policy } from './0009-row-level-security.js';

/** The roster tables hold one tenant's rows each: row-level security as on every tenant table (0009). */
export const ROSTER_TENANT_TABLES = ['roster_reconciliations', 'roster_rows', 'roster_differences'] as const;

export class Migration0015RosterRowSecurity extends Migration {
  override up(): void {
    this.addSql(ROSTER_TENANT_TABLES.map(policy).join('\n'));
  }

  override down(): void {
    this.addSql(
      ROSTER_TENANT_TABLES.map(
        (t) => `drop policy tenant_isolation on ${t};\nalter table ${t} disable row level security;`,
      ).join('\n'),
    );
  }
}
