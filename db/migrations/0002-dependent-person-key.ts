import { Migration } from '@mikro-orm/migrations';

/**
 * A dependent is one person per employee: the same relationship, name (case-insensitive) and date of
 * birth is the same dependent, so a repeated or racing add finds the existing row instead of a twin.
 */
export class Migration0002DependentPersonKey extends Migration {
  override up(): void {
    this.addSql(`
create unique index dependents_person on dependents (client_id, employee_id, relationship, lower(name), date_of_birth);
`);
  }
}
