import { Migration } from '@mikro-orm/migrations';

/**
 * An audit entry may carry the operator's reason: an insurer decision recorded by an operator for
 * an endorsement the insurer had not received (`insurer approve|reject --force --reason`, D14).
 * Entries written before this, and every other entry, carry none.
 */
export class Migration0029AuditReason extends Migration {
  override up(): void {
    this.addSql('alter table audit_events add column reason text;');
  }

  override down(): void {
    this.addSql('alter table audit_events drop column reason;');
  }
}
