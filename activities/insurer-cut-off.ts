import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { InsurerDeliveryError } from '../adapters/file/transport.js';
import { SystemScope } from '../data/scope.js';
import type { FileFormat } from '../domain/insurer-exchange/file.js';
import {
  fileInsurerSettings,
  markCutOffSent,
  NotAFileInsurer,
  releaseUndeliveredCutOff,
} from '../usecases/insurer-exchange/cut-off.js';
import {
  deliverPlannedFile,
  planCutOff,
  type DeliveredFile,
  type PlannedPolicyFile,
} from '../usecases/insurer-exchange/files.js';
import { startDeliveries } from '../usecases/webhooks/deliveries.js';
import { INSURER_DELIVERY_REFUSED, NOT_A_FILE_INSURER } from '../workflows/insurer-cut-off/contract.js';
import { heartbeating } from './heartbeat.js';
import type { ActivityDeps } from './deps.js';

/** A cut-off for a code without a file insurer (a removed one, a typo in a flush) cannot succeed. */
async function settingsOf(deps: ActivityDeps, insurerCode: string) {
  try {
    return await fileInsurerSettings(deps.orm.em, insurerCode);
  } catch (err) {
    if (!(err instanceof NotAFileInsurer)) throw err;
    throw ApplicationFailure.create({ type: NOT_A_FILE_INSURER, message: err.message, nonRetryable: true });
  }
}

function beat(): void {
  try {
    Context.current().heartbeat();
  } catch {
    // Outside an activity (direct calls in tests): nothing to tell.
  }
}

/**
 * D14 file insurers' activities: thin over usecases/insurer-exchange/files.ts and insurer-cut-off.ts. Each is
 * idempotent under retry (see the workflow in workflows/insurer-cut-off/workflow.ts).
 */
export function createInsurerCutOffActivities(deps: ActivityDeps) {
  const system = () => SystemScope.of(deps.orm.em);
  return {
    /** Claims the cut-off's endorsements and names its files (ids and names only). */
    async planInsurerCutOff(q: { insurerCode: string; cutOff: string }): Promise<PlannedPolicyFile[]> {
      const settings = await settingsOf(deps, q.insurerCode);
      return planCutOff(deps.orm.em, { insurerCode: q.insurerCode, settings, cutOff: new Date(q.cutOff) });
    },

    /**
     * Writes and delivers one planned file. A transport failure the insurer's side may recover from
     * is retried (with the workflow's back-off); wrong settings fail for good (InsurerDeliveryRefused).
     */
    async deliverInsurerFile(q: {
      insurerCode: string;
      cutOff: string;
      policy: PlannedPolicyFile;
      format: FileFormat;
    }): Promise<DeliveredFile> {
      const settings = await settingsOf(deps, q.insurerCode);
      try {
        const file = await heartbeating(() =>
          deliverPlannedFile(
            { em: deps.orm.em, dataDir: deps.config.dataDir },
            { ...q, settings, cutOff: new Date(q.cutOff) },
          ),
        );
        deps.logger.info(
          { insurerCode: q.insurerCode, file: file.file_name, rows: file.rows },
          'insurer file delivered',
        );
        return file;
      } catch (err) {
        if (err instanceof InsurerDeliveryError && !err.retryable) {
          throw ApplicationFailure.create({
            type: INSURER_DELIVERY_REFUSED,
            message: err.message,
            nonRetryable: true,
          });
        }
        throw err;
      }
    },

    /**
     * Moves the delivered endorsements to SENT_TO_INSURER and tells their workflows; records the
     * delivered withdrawals (`withdrawalIds`, absent from cut-offs planned before they existed).
     */
    async markCutOffSent(q: {
      cutOff: string;
      endorsementIds: string[];
      withdrawalIds?: string[];
    }): Promise<{ moved: string[]; already: string[]; withdrawn: string[] }> {
      const mark = await markCutOffSent(
        { em: deps.orm.em, temporal: deps.temporal },
        {
          cutOff: new Date(q.cutOff),
          endorsementIds: q.endorsementIds,
          withdrawalIds: q.withdrawalIds ?? [],
        },
        beat,
      );
      await startDeliveries(deps, deps.orm.em, mark.deliveries);
      return { moved: mark.moved, already: mark.already, withdrawn: mark.withdrawn };
    },

    /** Gives back the claim of endorsements (and withdrawals) whose file could not be delivered for good. */
    async releaseCutOffClaim(q: {
      cutOff: string;
      endorsementIds: string[];
      withdrawalIds?: string[];
    }): Promise<number> {
      return releaseUndeliveredCutOff(system(), { ...q, cutOff: new Date(q.cutOff) });
    },
  };
}

export type InsurerCutOffActivities = ReturnType<typeof createInsurerCutOffActivities>;
