import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  adaptersOfInsurerCode,
  listFileInsurers,
  markCutOffDelivered,
  releaseCutOffClaim,
  type CutOffMark,
} from '../../data/insurer-exchange/cut-off.js';
import { SystemScope } from '../../data/scope.js';
import {
  storedAdapterConfig,
  type FileAdapterSettings,
} from '../../domain/insurer-exchange/adapter-settings.js';
import { cutOffDeliveredSignal, endorsementWorkflowId } from '../../workflows/endorsement/contract.js';
import {
  cutOffWorkflowId,
  INSURER_CUT_OFF_WORKFLOW,
  type CutOffInput,
  type CutOffResult,
} from '../../workflows/insurer-cut-off/contract.js';
import { cutOffMetadata } from '../../workflows/user-metadata.js';

/** An insurer code that is not a `file` insurer: nothing to cut off. */
export class NotAFileInsurer extends Error {}

/**
 * The file settings a cut-off of `code` uses: the insurer's own (one platform row per code, D12), the
 * same for every client whose policies name it.
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
 * markCutOffDelivered) and then tells each one's workflow (`cutOffDelivered`), with who has it and
 * since when for its SLA watch. Idempotent: a retry moves nothing and signals again those already
 * moved, which the workflows ignore. A workflow that is gone (closed by a cancel) is skipped. `beat`
 * is called as signals go out (activity heartbeat).
 */
export async function markCutOffSent(
  deps: { em: EntityManager; temporal: Client },
  q: { cutOff: Date; endorsementIds: readonly string[]; withdrawalIds?: readonly string[] },
  beat: () => void = () => undefined,
): Promise<CutOffMark> {
  const mark = await markCutOffDelivered(SystemScope.of(deps.em), q);
  const tell = [...mark.moved, ...mark.already];
  const cutOff = q.cutOff.toISOString();
  for (let i = 0; i < tell.length; i += SIGNAL_CONCURRENCY) {
    await Promise.all(
      tell.slice(i, i + SIGNAL_CONCURRENCY).map((id) =>
        deps.temporal.workflow
          .getHandle(endorsementWorkflowId(id))
          .signal(cutOffDeliveredSignal, { cutOff, insurer: mark.assignments[id] })
          .catch((err: unknown) => {
            if (!(err instanceof WorkflowNotFoundError)) throw err;
          }),
      ),
    );
    beat();
  }
  return mark;
}

/**
 * `insurer flush CODE`: runs one cut-off of a file insurer now and waits for its result (the files
 * it delivered; ids and counts only). The cut-off instant is now to the second, and the workflow id
 * derives from it: a flush repeated within the same second is the same cut-off. A code that is
 * unknown, or not a file insurer, is refused before anything starts.
 */
export async function flushInsurer(
  deps: { em: EntityManager; temporal: Client; taskQueue: string },
  code: string,
  now: Date,
): Promise<CutOffResult> {
  const adapters = await adaptersOfInsurerCode(SystemScope.of(deps.em), code);
  if (adapters.length === 0) throw new NotAFileInsurer(`no insurer with code ${code}`);
  if (!adapters.includes('file')) {
    throw new NotAFileInsurer(
      `insurer ${code} uses the ${adapters.join(', ')} adapter, not file: nothing to flush`,
    );
  }
  // Rounded up to the second: everything reviewed before the flush is included.
  const cutOff = new Date(Math.ceil(now.getTime() / 1000) * 1000);
  const workflowId = cutOffWorkflowId(code, cutOff);
  try {
    // A running one is joined; a finished one is never run again (its files were delivered).
    await deps.temporal.workflow.start(INSURER_CUT_OFF_WORKFLOW, {
      workflowId,
      taskQueue: deps.taskQueue,
      args: [{ insurerCode: code, cutOff: cutOff.toISOString() } satisfies CutOffInput],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      ...cutOffMetadata(code, cutOff.toISOString()),
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  return deps.temporal.workflow.getHandle<(i: CutOffInput) => Promise<CutOffResult>>(workflowId).result();
}

/**
 * Gives back a cut-off's claim on endorsements (and withdrawals) whose file could not be delivered
 * for good (our settings are wrong), so the next cut-off after the fix carries them. Idempotent.
 */
export async function releaseUndeliveredCutOff(
  system: SystemScope,
  q: { cutOff: Date; endorsementIds: readonly string[]; withdrawalIds?: readonly string[] },
): Promise<number> {
  return releaseCutOffClaim(system, q);
}
