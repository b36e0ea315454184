import { Migration } from '@mikro-orm/migrations';

/**
 * A census batch records when its workflow was started (`workflow_started_at`, as endorsements and
 * grants do), so the endorsement reconciler can start the workflow of a RUNNING batch whose commit
 * outlived its start (the process died between the two). Batches that already finished are marked
 * started (they were); RUNNING ones stay unmarked and the reconciler's first pass starts or finds
 * their workflow (the start is idempotent by workflow id) and marks them.
 */
export class Migration0022CensusBatchWorkflowStart extends Migration {
  override up(): void {
    this.addSql(`
alter table census_batches add column workflow_started_at timestamptz;
update census_batches set workflow_started_at = coalesce(completed_at, created_at)
 where status <> 'BATCH_STATUS_RUNNING';
create index census_batches_unstarted on census_batches (created_at) where workflow_started_at is null;
`);
  }

  override down(): void {
    this.addSql(
      'drop index census_batches_unstarted; alter table census_batches drop column workflow_started_at;',
    );
  }
}
