import type { DeliveredFile, PlannedPolicyFile } from '../../domain/insurer-exchange/file.js';

/**
 * D14: one cut-off of a file insurer, as a workflow. Started by the insurer's Schedule
 * (`insurer-cut-off-<CODE>`, daily at its cut_off_time in Asia/Kolkata) or by `insurer flush CODE`.
 * Ids, counts and file names only in its payloads: personal data is read by the activity that
 * writes the file and goes nowhere else.
 */
export const INSURER_CUT_OFF_WORKFLOW = 'insurerCutOffWorkflow';

export type { DeliveredFile, PlannedPolicyFile };

export const cutOffScheduleId = (insurerCode: string): string => `insurer-cut-off-${insurerCode}`;

/**
 * A cut-off's workflow id: the Schedule's id and the cut-off instant to the second, the same shape
 * Temporal gives a scheduled run (`<id>-<RFC 3339 time>`), so starting a cut-off again for the same
 * instant (a retried flush, a flush at the scheduled second) finds the same workflow.
 */
export const cutOffWorkflowId = (insurerCode: string, cutOff: Date): string =>
  `${cutOffScheduleId(insurerCode)}-${cutOff.toISOString().replace(/\.\d{3}Z$/, 'Z')}`;

export interface CutOffInput {
  insurerCode: string;
  /** The cut-off instant (ISO 8601); absent when a Schedule started it (its scheduled time is used). */
  cutOff?: string;
}

export interface CutOffResult {
  insurer_code: string;
  cut_off: string;
  files: DeliveredFile[];
  /** Endorsements moved to SENT_TO_INSURER by this cut-off. */
  sent: number;
  /** In a delivered file but cancelled before the mark: the insurer has a row for them (docs/insurers/README.md). */
  cancelled_meanwhile: string[];
  /** Cancelled after an earlier cut-off delivered them: this cut-off's files withdraw them. */
  withdrawn: string[];
}

/** Failure types that retrying cannot change. */
export const NOT_A_FILE_INSURER = 'NotAFileInsurer';
export const INSURER_DELIVERY_REFUSED = 'InsurerDeliveryRefused';
