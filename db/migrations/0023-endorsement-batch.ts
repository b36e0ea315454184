import { Migration } from '@mikro-orm/migrations';

/**
 * An endorsement made by a census row records its batch (`batch_id`), so whoever starts its
 * workflow, the batch's chunk or the endorsement reconciler when the chunk is late, sets the same
 * BatchId search attribute, and a batch's rows find an exit's DELETIONs by it (index
 * endorsements_batch). Endorsements made before this carry none.
 */
export class Migration0023EndorsementBatch extends Migration {
  override up(): void {
    this.addSql(`
alter table endorsements add column batch_id text references census_batches(id);
create index endorsements_batch on endorsements (batch_id) where batch_id is not null;
`);
  }

  override down(): void {
    this.addSql('alter table endorsements drop column batch_id;');
  }
}
