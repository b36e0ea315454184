import { Migration } from '@mikro-orm/migrations';

/**
 * Member lists sort by employee name ignoring case (D5): the keyset index follows the same
 * `lower(employee_name)` the order and the cursors use, and replaces the case-sensitive one.
 */
export class Migration0006MemberNameCaseless extends Migration {
  override up(): void {
    this.addSql(`
      create index policy_members_page_caseless
        on policy_members (client_id, policy_id, lower(employee_name), employee_id, member_rank, id);
      drop index policy_members_page;
    `);
  }

  override down(): void {
    this.addSql(`
      create index policy_members_page
        on policy_members (client_id, policy_id, employee_name, employee_id, member_rank, id);
      drop index policy_members_page_caseless;
    `);
  }
}
