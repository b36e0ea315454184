import { Migration } from '@mikro-orm/migrations';

/**
 * An endorsement made by a census row records its batch (`batch_id`), so whoever starts its
 * workflow, the batch's chunk or the endorsement reconciler when the chunk is late, sets the same
 * BatchId search attribute. Endorsements made before this carry none.
 */
export class Migration0023EndorsementBatch extends Migration {
  override up(): void {
    this.addSql('alter table endorsements add column batch_id text references census_batches(id);');
  }

  override down(): void {
    this.addSql('alter table endorsements drop column batch_id;');
  }
}
