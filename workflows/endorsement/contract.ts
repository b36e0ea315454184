import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { EndorsementStatus as Status, EndorsementType as Type } from '../../domain/enums.js';
import type {
  DecisionAnswer,
  DecisionResult,
  InsurerAssignment,
  InsurerDecision,
} from '../../domain/insurer-exchange/decisions.js';
import type { SubmissionFailure } from '../../domain/insurer-exchange/failures.js';
import {
  AwaitingFunds,
  BatchId,
  ClientId,
  EmployeeId,
  EndorsementStatus,
  EndorsementStuck,
  EndorsementType,
  PolicyId,
} from '../search-attributes.js';
import { idempotentStartOptions } from '../start-options.js';
import { endorsementMetadata, type EndorsementCodes } from '../user-metadata.js';

/**
 * The endorsement workflow's contract (D7, D8), shared by the API, the worker, the insurer adapters
 * and the insurer command. Payloads carry ids and statuses only: names, emails and dates of birth
 * stay in PostgreSQL and are read by activities.
 */
export const ENDORSEMENT_WORKFLOW = 'endorsementWorkflow';
export const endorsementWorkflowId = (endorsementId: string): string => `endorsement-${endorsementId}`;

export interface EndorsementWorkflowInput {
  endorsementId: string;
  clientId: string;
  policyId: string;
  employeeId: string;
  type: Type;
  /** How long to wait for the insurer before flagging EndorsementStuck (ENDORSEMENT_STUCK_AFTER). */
  stuckAfterMs: number;
  /**
   * The insurer's SLA from submission (INSURER_SLA_DEFAULT) before EndorsementSlaBreached; absent
   * in runs started before it existed (the default then applies).
   */
  slaAfterMs?: number;
  /** Policy number, insurer and employee code for the Web UI's summary (starts that read them). */
  codes?: EndorsementCodes;
  /** The census batch that created it (D16): its BatchId search attribute (starts outside a batch: none). */
  batchId?: string;
}

/** D8: what an insurer sends (domain/insurer-exchange/decisions.ts); exported here for adapter code. */
export type { DecisionAnswer, DecisionResult, InsurerDecision };
/** D8's signal: still accepted (fire and forget) for integrations that send it. */
export const INSURER_DECISION_SIGNAL = 'insurerDecision';
export const insurerDecisionSignal = defineSignal<[InsurerDecision]>(INSURER_DECISION_SIGNAL);

/**
 * D14: the insurer's decision as an Update, answered synchronously. Its validator refuses a
 * malformed decision, one before submission, one after a cancel or a different decision (failure
 * type DECISION_REFUSED) and a repeat of the decision already taken (DECISION_DUPLICATE); neither
 * reaches the workflow's history. An accepted one answers `accepted` once recorded.
 */
export const insurerDecisionUpdate = defineUpdate<DecisionAnswer, [InsurerDecision]>('decideEndorsement');
export const DECISION_REFUSED = 'InsurerDecisionRefused';
export const DECISION_DUPLICATE = 'InsurerDecisionDuplicate';

/** What the workflow reports through its query and as its result. */
export interface EndorsementState {
  endorsementId: string;
  status: Status;
  /** The insurer's decision once received (it is applied right after). */
  decision: InsurerDecision['decision'] | null;
  /**
   * The submission has started (set before it resolves): the insurer may have it, so a cancel from
   * here on withdraws. Whether the insurer has it for certain is `received`.
   */
  submitted: boolean;
  /**
   * The insurer has it: the submission was accepted, or the file carrying it was delivered (an
   * operator's manual decision needs this). Absent in results recorded before it existed.
   */
  received?: boolean;
  cancelRequested: boolean;
  stuck: boolean;
  /** The endorsement row no longer exists (its create was rolled back); the workflow did nothing. */
  discarded: boolean;
}
export const endorsementStateQuery = defineQuery<EndorsementState>('state');

/**
 * A submit attempt failed (sent by the submit activity, ids and the adapter's message only): the
 * workflow's details show the error and its fix until the insurer accepts. Sent when the error
 * differs from the one shown (`submissionFailureQuery`), so a retry every minute adds no history.
 */
export type { SubmissionFailure };
export const submissionFailingSignal = defineSignal<[SubmissionFailure]>('submissionFailing');
export const submissionFailureQuery = defineQuery<SubmissionFailure | null>('submissionFailure');

/**
 * D16: a leaver's exit is overdue (the leaving date has passed) and waits on this endorsement, which
 * keeps the leaver's DELETION from being created (one open endorsement per employee and policy). Sent
 * by the daily cover pass to each blocking endorsement's workflow; the workflow's details name the
 * employee and the day (ids and a date only). Details only: the commands never depend on it, so the
 * signal changes no history's command sequence. A repeat (the next day's pass) replaces the same line.
 */
export interface ExitWaiting {
  employeeId: string;
  policyId: string;
  /** The leaving date (YYYY-MM-DD): the exit is overdue from the day after. */
  dateOfLeaving: string;
}
export const exitWaitingSignal = defineSignal<[ExitWaiting]>('exitWaiting');

/**
 * D14: a file insurer's cut-off delivered the file carrying this endorsement and moved it to
 * SENT_TO_INSURER (in the batch's bulk statement); the workflow mirrors the status and waits for the
 * insurer's decision. Ids, an instant and a number of days only; a repeat or a late one (after a
 * cancel) changes nothing.
 */
export interface CutOffDelivered {
  /** The cut-off's instant (ISO 8601). */
  cutOff: string;
  /**
   * Who has it and since when (the cut-off's statement), for the insurer SLA's watch; absent from
   * signals sent before it was carried, when the workflow reads it itself.
   */
  insurer?: InsurerAssignment;
}
export const cutOffDeliveredSignal = defineSignal<[CutOffDelivered]>('cutOffDelivered');

/**
 * The CD account: a top-up (or a release, or a refund) placed this endorsement's hold while it
 * waited for funds; the workflow reads its hold and goes on. A lost one is made up by the
 * workflow's own periodic re-check.
 */
export const cdFundsHeldSignal = defineSignal('cdFundsHeld');

/** What the hold at review answered: held (or nothing to hold), or waiting for funds and why. */
export interface CdHoldAnswer {
  held: boolean;
  reason?: string;
}

/** Operators' cancel (fire and forget); the API uses the update below to answer synchronously. */
export const cancelEndorsementSignal = defineSignal('cancel');
/** Cancels while PENDING or SENT_TO_INSURER; rejected by its validator once a decision is in. */
export const cancelEndorsementUpdate = defineUpdate<EndorsementState>('cancelEndorsement');

/** Failure types: business outcomes that retrying cannot change. */
export const REVIEW_REJECTED = 'ReviewRejected';
export const ENDORSEMENT_GONE = 'EndorsementNotFound';
export const ENDORSEMENT_STATE_CONFLICT = 'EndorsementStateConflict';
export const CANCEL_REFUSED = 'CancelRefused';

export const OPEN_STATUSES: readonly Status[] = [
  'ENDORSEMENT_STATUS_PENDING',
  'ENDORSEMENT_STATUS_SENT_TO_INSURER',
];
export const isOpenStatus = (status: Status): boolean => OPEN_STATUSES.includes(status);

/**
 * Idempotent start (workflows/start-options.ts): the workflow id is derived from the endorsement
 * id, so a start while one runs returns it and a start after it closed is refused rather than
 * running the endorsement twice.
 */
export function endorsementStartOptions(input: EndorsementWorkflowInput, taskQueue: string) {
  const id = endorsementWorkflowId(input.endorsementId);
  return idempotentStartOptions(id, taskQueue, input, endorsementMetadata(input), [
    { key: EndorsementStatus, value: 'ENDORSEMENT_STATUS_PENDING' },
    { key: EndorsementType, value: input.type },
    { key: ClientId, value: input.clientId },
    { key: PolicyId, value: input.policyId },
    { key: EmployeeId, value: input.employeeId },
    { key: EndorsementStuck, value: false },
    { key: AwaitingFunds, value: false },
    ...(input.batchId ? [{ key: BatchId, value: input.batchId }] : []),
  ]);
}

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** ENDORSEMENT_STUCK_AFTER ("7d", "12h", "500ms") in milliseconds. */
export function durationMs(text: string): number {
  const m = /^(\d+)\s*(ms|s|m|h|d)$/.exec(text.trim());
  if (!m) throw new RangeError(`not a duration: ${text}`);
  return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
}

/** The simulated insurer (D8): decides one endorsement after a delay, as an external system would. */
export const SIMULATED_INSURER_WORKFLOW = 'simulatedInsurerWorkflow';
export const simulatedInsurerWorkflowId = (endorsementId: string): string =>
  `simulated-insurer-${endorsementId}`;
export interface SimulatedInsurerInput {
  endorsementId: string;
  delayMs: number;
  decision: InsurerDecision;
}
