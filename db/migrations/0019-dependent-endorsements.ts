import { Migration } from '@mikro-orm/migrations';

/**
 * D16: a dependent joining a covered employee gets its own ADDITION (`endorsements.dependent_id`, the
 * one person it covers); the life event that lets it join late is the dependent's `event_date`
 * (marriage, birth, adoption); a policy's eligibility overrides (`policies.eligibility`, D16's
 * defaults apply where absent); and each client's choice for exits (`clients.exit_mode`): DELETIONs
 * created automatically or proposed.
 */
export class Migration0019DependentEndorsements extends Migration {
  override up(): void {
    this.addSql(`
      alter table endorsements add column dependent_id text null references dependents(id);
      alter table dependents add column event_date date null;
      alter table policies add column eligibility jsonb not null default '{}'::jsonb;
      alter table clients add column exit_mode text not null default 'automatic';
    `);
  }

  override down(): void {
    this.addSql(`
      alter table clients drop column exit_mode;
      alter table policies drop column eligibility;
      alter table dependents drop column event_date;
      alter table endorsements drop column dependent_id;
    `);
  }
}
