import { Migration } from '@mikro-orm/migrations';

/**
 * D18: an insurer principal can be revoked. The row stays (the operator's list shows when), and
 * from `revoked_at` on its secret issues no token and every token it was issued is refused.
 */
export class Migration0025InsurerPrincipalRevocation extends Migration {
  override up(): void {
    this.addSql('alter table insurer_principals add column revoked_at timestamptz;');
  }

  override down(): void {
    this.addSql('alter table insurer_principals drop column revoked_at;');
  }
}
