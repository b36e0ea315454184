import { Migration } from '@mikro-orm/migrations';

/**
 * D18: a client's credentials can be revoked (`admin client:revoke`). From `revoked_at` on, its
 * secret gets no token and every token already issued is refused (401); `client:rotate --reinstate`
 * issues a new secret and lifts it. Clients never revoked carry none.
 */
export class Migration0030ClientRevocation extends Migration {
  override up(): void {
    this.addSql('alter table clients add column revoked_at timestamptz;');
  }

  override down(): void {
    this.addSql('alter table clients drop column revoked_at;');
  }
}
