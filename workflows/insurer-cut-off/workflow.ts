import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { ActivityFailure, log, proxyActivities, setCurrentDetails, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import { databaseActivity } from '../activity-options.js';
import {
  INSURER_DELIVERY_REFUSED,
  NOT_A_FILE_INSURER,
  type CutOffInput,
  type CutOffResult,
  type DeliveredFile,
} from './contract.js';

/** Claiming and listing thousands of rows takes longer than a single-row statement. */
const db = proxyActivities<Activities>({
  ...databaseActivity([NOT_A_FILE_INSURER]),
  startToCloseTimeout: '1 minute',
});

/**
 * Delivering one file: an SFTP server may be down for hours, so retry with back-off (capped at a
 * minute) until it returns; the endorsements wait PENDING meanwhile and their workflows flag them
 * stuck on time. Heartbeats notice a dead worker within seconds. Settings that are wrong (host key,
 * login, folder) fail at once.
 */
const delivery = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '10 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: [INSURER_DELIVERY_REFUSED, NOT_A_FILE_INSURER],
  },
});

/** Marking and telling 5,000 workflows takes seconds; heartbeats say it is alive. */
const marking = proxyActivities<Activities>({
  ...databaseActivity(),
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '30 seconds',
});

/** Temporal sets it on every run a Schedule starts: the time the run was scheduled for. */
const TemporalScheduledStartTime = defineSearchAttributeKey(
  'TemporalScheduledStartTime',
  SearchAttributeType.DATETIME,
);

/** The scheduled time of a Schedule's run, else (a start without one) the start time, to the second. */
function scheduledCutOff(): string {
  const info = workflowInfo();
  const at = info.typedSearchAttributes.get(TemporalScheduledStartTime) ?? info.runStartTime;
  return at.toISOString().replace(/\.\d{3}Z$/, '.000Z');
}

/**
 * One cut-off of a file insurer (D14). Each step is an activity, so a worker killed mid-batch
 * resumes at the step it was in, and no completed step runs again:
 *  1. plan: claim the endorsements queued up to the cut-off (each belongs to one cut-off) and name
 *     the files, one per policy and format (names from insurer, policy and the cut-off instant);
 *  2. deliver each file (written under a temporary name, renamed over the final one: a retried
 *     delivery replaces the same file, so every endorsement is in exactly one delivered file);
 *  3. only then the bulk mark: PENDING -> SENT_TO_INSURER with audit rows and events in one
 *     statement, and each endorsement's workflow is told.
 * A delivery refused for good gives back the claim of the policies not delivered (the next cut-off
 * after the fix carries them), marks those delivered, and fails the run for an operator to see.
 * Withdrawals (endorsements cancelled after an earlier file) ride in the same files and the same
 * steps: no command was added for them, so cut-offs recorded before them replay unchanged (a plan
 * recorded then has no `withdrawal_ids`).
 */
export async function insurerCutOffWorkflow(input: CutOffInput): Promise<CutOffResult> {
  const insurerCode = input.insurerCode;
  const cutOff = input.cutOff ?? scheduledCutOff();
  setCurrentDetails(`**planning** the cut-off of \`${insurerCode}\` at ${cutOff}`);
  const plan = await db.planInsurerCutOff({ insurerCode, cutOff });
  const files: DeliveredFile[] = [];
  const delivered: string[] = [];
  const withdrawn: string[] = [];
  let failure: ActivityFailure | null = null;
  for (const policy of plan) {
    try {
      for (const { format, file_name } of policy.files) {
        const what = `${file_name} (${policy.endorsement_ids.length} endorsements)`;
        setCurrentDetails(`**delivering** ${what}; ${files.length} files delivered so far`);
        files.push(
          await delivery.deliverInsurerFile.executeWithOptions(
            { summary: `deliver ${what} to ${insurerCode}` },
            [{ insurerCode, cutOff, policy, format }],
          ),
        );
      }
      delivered.push(...policy.endorsement_ids);
      withdrawn.push(...(policy.withdrawal_ids ?? []));
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      failure = err;
      const withdrawalIds = policy.withdrawal_ids ?? [];
      await db.releaseCutOffClaim({ cutOff, endorsementIds: policy.endorsement_ids, withdrawalIds });
    }
  }
  setCurrentDetails(`**marking** ${delivered.length} endorsements SENT_TO_INSURER`);
  const mark = await marking.markCutOffSent({ cutOff, endorsementIds: delivered, withdrawalIds: withdrawn });
  const told = new Set([...mark.moved, ...mark.already]);
  const result: CutOffResult = {
    insurer_code: insurerCode,
    cut_off: cutOff,
    files,
    sent: mark.moved.length + mark.already.length,
    cancelled_meanwhile: delivered.filter((id) => !told.has(id)),
    withdrawn: mark.withdrawn ?? [],
  };
  log.info('insurer cut-off done', {
    insurerCode,
    cutOff,
    files: files.length,
    sent: result.sent,
    cancelledMeanwhile: result.cancelled_meanwhile.length,
    withdrawn: result.withdrawn.length,
  });
  setCurrentDetails(
    `**done**: ${files.length} files, ${result.sent} sent${failure ? '; a delivery was refused (see the failure)' : ''}`,
  );
  if (failure) throw failure;
  return result;
}
