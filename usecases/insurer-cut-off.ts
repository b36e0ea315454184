import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { EntityManager } from '@mikro-orm/postgresql';
import { listFileInsurers, markCutOffDelivered } from '../data/insurer-cut-off.js';
import { SystemScope } from '../data/scope.js';
import { storedAdapterConfig, type FileAdapterSettings } from '../domain/insurer-adapter-settings.js';
import { cutOffDeliveredSignal, endorsementWorkflowId } from '../workflows/endorsement/contract.js';

/** An insurer code with no `file` insurer row in any client: nothing to cut off. */
export class NotAFileInsurer extends Error {}

/**
 * The file settings a cut-off of `code` uses: those of the first client's row of that code (by
 * client id). An insurer's exchange is the insurer's own, so every client loading the code is
 * expected to give the same settings; the README says so.
 */
export async function fileInsurerSettings(em: EntityManager, code: string): Promise<FileAdapterSettings> {
  const [row] = await listFileInsurers(SystemScope.of(em), code);
  if (!row) throw new NotAFileInsurer(`no file insurer with code ${code}`);
  const config = storedAdapterConfig(code, 'file', row.adapterSettings);
  if (config.adapter !== 'file') throw new NotAFileInsurer(`no file insurer with code ${code}`);
  return config.adapterSettings;
}

/** How many signals are in flight at once: quick on a local server, gentle on a busy one. */
const SIGNAL_CONCURRENCY = 32;

/**
 * Moves a cut-off's delivered endorsements to SENT_TO_INSURER (one statement, see
 * markCutOffDelivered) and then tells each one's workflow (`cutOffDelivered`). Idempotent: a retry
 * moves nothing and signals again those already moved, which the workflows ignore. A workflow that
 * is gone (closed by a cancel) is skipped. `beat` is called as signals go out (activity heartbeat).
 */
export async function markCutOffSent(
  deps: { em: EntityManager; temporal: Client },
  q: { cutOff: Date; endorsementIds: readonly string[] },
  beat: () => void = () => undefined,
): Promise<{ moved: string[]; already: string[]; deliveries: string[] }> {
  const mark = await markCutOffDelivered(SystemScope.of(deps.em), q);
  const tell = [...mark.moved, ...mark.already];
  const payload = { cutOff: q.cutOff.toISOString() };
  for (let i = 0; i < tell.length; i += SIGNAL_CONCURRENCY) {
    await Promise.all(
      tell.slice(i, i + SIGNAL_CONCURRENCY).map((id) =>
        deps.temporal.workflow
          .getHandle(endorsementWorkflowId(id))
          .signal(cutOffDeliveredSignal, payload)
          .catch((err: unknown) => {
            if (!(err instanceof WorkflowNotFoundError)) throw err;
          }),
      ),
    );
    beat();
  }
  return mark;
}
