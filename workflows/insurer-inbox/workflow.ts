import { ActivityFailure, ApplicationFailure, log, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import { emptyInboxResult, type InboxPassResult } from './contract.js';

const listing = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 3 },
});

/** One insurer's inbox: a large response file is thousands of Updates, so a long limit. */
const ingesting = proxyActivities<Activities>({
  startToCloseTimeout: '20 minutes',
  retry: { initialInterval: '10 seconds', maximumInterval: '1 minute', maximumAttempts: 3 },
});

/**
 * D14: one poll of every file insurer's inbox. An insurer whose inbox fails (its SFTP server down)
 * does not hold up the others; the run then fails, visibly in the Schedule, and the next tick tries
 * again. Re-running is safe: a file already recorded answers its recorded outcome.
 */
export async function insurerInboxPassWorkflow(): Promise<InboxPassResult> {
  const codes = await listing.listFileInsurerCodes();
  const total = emptyInboxResult();
  const failed: string[] = [];
  for (const code of codes) {
    try {
      const one = await ingesting.ingestInsurerInbox(code);
      for (const k of Object.keys(total) as (keyof InboxPassResult)[]) total[k] += one[k];
    } catch (err) {
      failed.push(code);
      // The activity's own failure says why (server down, key unreadable), not "Activity task failed".
      const why = err instanceof ActivityFailure && err.cause ? err.cause : err;
      log.error('insurer inbox failed', { code, error: why instanceof Error ? why.message : String(why) });
    }
  }
  if (total.files > 0) log.info('insurer inbox pass done', { ...total });
  if (failed.length > 0) {
    throw ApplicationFailure.create({ message: `inbox of ${failed.join(', ')} failed`, nonRetryable: true });
  }
  return total;
}
