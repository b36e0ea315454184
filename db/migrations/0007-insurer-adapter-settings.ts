import { Migration } from '@mikro-orm/migrations';

/**
 * D14: insurers may use the `file` and `api` adapters, and each insurer keeps its adapter's settings
 * (validated by the load command; `{}` for rows loaded before, which read back with the defaults).
 */
export class Migration0007InsurerAdapterSettings extends Migration {
  override up(): void {
    this.addSql(`
      alter table insurers drop constraint insurers_adapter_check;
      alter table insurers add constraint insurers_adapter_check
        check (adapter in ('simulated', 'manual', 'file', 'api'));
      alter table insurers add column adapter_settings jsonb not null default '{}';
    `);
  }

  override down(): void {
    this.addSql(`
      alter table insurers drop column adapter_settings;
      alter table insurers drop constraint insurers_adapter_check;
      alter table insurers add constraint insurers_adapter_check check (adapter in ('simulated', 'manual'));
    `);
  }
}
