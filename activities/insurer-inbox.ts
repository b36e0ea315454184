import { ApplicationFailure } from '@temporalio/common';
import { InsurerDeliveryError } from '../adapters/file/transport.js';
import { listFileInsurerCodes } from '../usecases/insurer-exchange/inbox-schedule.js';
import { IngestError, ingestInboxFiles } from '../usecases/insurer-exchange/inbox.js';
import { startDeliveries } from '../usecases/webhooks/deliveries.js';
import { INSURER_INBOX_MIN_AGE_MS, type InboxPassResult } from '../workflows/insurer-inbox/contract.js';
import type { ActivityDeps } from './deps.js';

/** D14: the inbox poll's activities; they return counts only (no file content in Temporal). */
export function createInsurerInboxActivities(deps: ActivityDeps) {
  return {
    async listFileInsurerCodes(): Promise<string[]> {
      return listFileInsurerCodes(deps.orm.em);
    },

    /** Ingests one insurer's settled inbox files. Safe to retry: files are recorded by content. */
    async ingestInsurerInbox(insurerCode: string): Promise<InboxPassResult> {
      try {
        const files = await ingestInboxFiles(
          {
            em: deps.orm.em,
            temporal: deps.temporal,
            dataDir: deps.config.dataDir,
            taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
            logger: deps.logger,
            deliver: (ids) => startDeliveries(deps, deps.orm.em, ids),
          },
          { insurerCode, minAgeMs: INSURER_INBOX_MIN_AGE_MS, now: deps.clock.now() },
        );
        return {
          insurers: 1,
          files: files.length,
          refused_files: files.filter((f) => f.status === 'refused').length,
          accepted: files.reduce((n, f) => n + f.counts.accepted, 0),
          duplicate: files.reduce((n, f) => n + f.counts.duplicate, 0),
          refused: files.reduce((n, f) => n + f.counts.refused, 0),
        };
      } catch (err) {
        // Wrong settings (host key, key file, folder) or a code gone: retrying cannot help.
        const settled = err instanceof IngestError || (err instanceof InsurerDeliveryError && !err.retryable);
        if (settled) throw ApplicationFailure.nonRetryable(err.message, 'InsurerInboxRefused');
        throw err;
      }
    },
  };
}
