import type { MigrationObject } from '@mikro-orm/core';
import { Migration0001Initial } from './0001-initial.js';
import { Migration0002DependentPersonKey } from './0002-dependent-person-key.js';
import { Migration0003MemberSearch } from './0003-member-search.js';
import { Migration0004Webhooks } from './0004-webhooks.js';
import { Migration0005TokenFailures } from './0005-token-failures.js';
import { Migration0006MemberNameCaseless } from './0006-member-name-caseless.js';
import { Migration0007InsurerAdapterSettings } from './0007-insurer-adapter-settings.js';
import { Migration0008InsurerPrincipals } from './0008-insurer-principals.js';
import { Migration0009RowLevelSecurity } from './0009-row-level-security.js';
import { Migration0010InsurerResponseFiles } from './0010-insurer-response-files.js';
import { Migration0011EndorsementCutOff } from './0011-endorsement-cut-off.js';
import { Migration0012CdAccount } from './0012-cd-account.js';
import { Migration0014RosterReconciliations } from './0014-roster-reconciliations.js';
import { Migration0015RosterRowSecurity } from './0015-roster-row-security.js';
import { Migration0016FileInsurerWithdrawals } from './0016-file-insurer-withdrawals.js';
import { Migration0017CensusBatches } from './0017-census-batches.js';
import { Migration0018CensusRowSecurity } from './0018-census-row-security.js';
import { Migration0019DependentEndorsements } from './0019-dependent-endorsements.js';
import { Migration0021CdStatementReconciliations } from './0021-cd-statement-reconciliations.js';
import { Migration0022CensusBatchWorkflowStart } from './0022-census-batch-workflow-start.js';
import { Migration0023EndorsementBatch } from './0023-endorsement-batch.js';

/** Listed explicitly so migrations run the same under tsx, compiled JS and bundlers. */
export const migrationsList: MigrationObject[] = [
  { name: '0001-initial', class: Migration0001Initial },
  { name: '0002-dependent-person-key', class: Migration0002DependentPersonKey },
  { name: '0003-member-search', class: Migration0003MemberSearch },
  { name: '0004-webhooks', class: Migration0004Webhooks },
  { name: '0005-token-failures', class: Migration0005TokenFailures },
  { name: '0006-member-name-caseless', class: Migration0006MemberNameCaseless },
  { name: '0007-insurer-adapter-settings', class: Migration0007InsurerAdapterSettings },
  { name: '0008-insurer-principals', class: Migration0008InsurerPrincipals },
  { name: '0009-row-level-security', class: Migration0009RowLevelSecurity },
  { name: '0010-insurer-response-files', class: Migration0010InsurerResponseFiles },
  { name: '0011-endorsement-cut-off', class: Migration0011EndorsementCutOff },
  { name: '0012-cd-account', class: Migration0012CdAccount },
  { name: '0014-roster-reconciliations', class: Migration0014RosterReconciliations },
  { name: '0015-roster-row-security', class: Migration0015RosterRowSecurity },
  { name: '0016-file-insurer-withdrawals', class: Migration0016FileInsurerWithdrawals },
  { name: '0017-census-batches', class: Migration0017CensusBatches },
  { name: '0018-census-row-security', class: Migration0018CensusRowSecurity },
  { name: '0019-dependent-endorsements', class: Migration0019DependentEndorsements },
  { name: '0021-cd-statement-reconciliations', class: Migration0021CdStatementReconciliations },
  { name: '0022-census-batch-workflow-start', class: Migration0022CensusBatchWorkflowStart },
  { name: '0023-endorsement-batch', class: Migration0023EndorsementBatch },
];
