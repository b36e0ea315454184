import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  log,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { EndorsementStatus as Status } from '../../domain/enums.js';
import {
  cleanMemberUhids,
  decisionVerdict,
  isInsurerAssignment,
  type InsurerAssignment,
} from '../../domain/insurer-exchange/decisions.js';
import { EndorsementStatus } from '../search-attributes.js';
import {
  CANCEL_REFUSED,
  cancelEndorsementSignal,
  cancelEndorsementUpdate,
  cdFundsHeldSignal,
  cutOffDeliveredSignal,
  DECISION_DUPLICATE,
  DECISION_REFUSED,
  endorsementStateQuery,
  insurerDecisionSignal,
  insurerDecisionUpdate,
  isOpenStatus,
  submissionFailingSignal,
  submissionFailureQuery,
  type EndorsementState,
  type EndorsementWorkflowInput,
  type InsurerDecision,
} from './contract.js';
import type { SlaWatch } from './insurer-sla.js';
import { EndorsementProgress } from './progress.js';

/** D8's signal accepts any decision with an outcome (its optional fields are cleaned below). */
const isDecision = (d: unknown): d is InsurerDecision =>
  typeof d === 'object' && d !== null && ['APPROVED', 'REJECTED'].includes((d as InsurerDecision).decision);

/** Keeps only well-formed optional fields of a decision (strings of a sane length). */
function cleanDecision(d: InsurerDecision): InsurerDecision {
  const text = (v: unknown, max: number) =>
    typeof v === 'string' && v.trim() ? v.trim().slice(0, max) : undefined;
  const clean: InsurerDecision = { decision: d.decision };
  const memberId = text(d.insurer_member_id, 100);
  const uhid = text(d.uhid, 100);
  const reason = text(d.rejection_reason, 1000);
  if (memberId) clean.insurer_member_id = memberId;
  if (uhid) clean.uhid = uhid;
  if (reason) clean.rejection_reason = reason;
  const source = text(d.source, 200);
  if (source) clean.source = source;
  const members = d.decision === 'APPROVED' ? cleanMemberUhids(d.members) : undefined;
  if (members) clean.members = members;
  return clean;
}

/**
 * One endorsement run's state and the handlers that change it: what the queries answer, what the
 * signals and updates (decision, cancel, cut-off delivered, funds held) record for the story in
 * workflow.ts to read. Handlers record facts only; every command (activity, timer, search attribute)
 * is issued by the story and its steps, so the order of commands is the story's alone.
 */
export class EndorsementRun {
  readonly id: string;
  readonly state: EndorsementState;
  readonly progress: EndorsementProgress;
  /** The first decision that counted (D8, D14), cleaned; null until one came. */
  decision: InsurerDecision | null = null;
  /** The cut-off's bulk statement moved the row to SENT_TO_INSURER and said so (D14). */
  delivered = false;
  /**
   * Who has it and since when, as the step that sent it said: the cut-off's signal (a file insurer),
   * the routing's answer (any other); null from the releases before SLA_WATCH_TOLD.
   */
  told: InsurerAssignment | null = null;
  /** Routed to a file insurer: a cancel after delivery queues a withdrawal for the next cut-off. */
  fileInsurer = false;
  /** Top-ups that may have placed this endorsement's hold (cdFundsHeld); `waited`: it waited for funds. */
  readonly funds = { wakeUps: 0, waited: false };
  /** The insurer SLA's watch once SENT_TO_INSURER. */
  sla: SlaWatch | null = null;

  constructor(readonly input: EndorsementWorkflowInput) {
    this.id = input.endorsementId;
    this.state = {
      endorsementId: input.endorsementId,
      status: 'ENDORSEMENT_STATUS_PENDING',
      decision: null,
      submitted: false,
      received: false,
      cancelRequested: false,
      stuck: false,
      discarded: false,
    };
    this.progress = new EndorsementProgress(input, this.state);
    this.registerHandlers();
  }

  /** A decision or a cancel came: nothing is waited for from the insurer any more. */
  readonly settled = (): boolean => this.decision !== null || this.state.cancelRequested;

  /** D7: a cancel is taken while open, before a decision (or once one was asked for). */
  private readonly cancellable = (): boolean =>
    isOpenStatus(this.state.status) &&
    !this.state.discarded &&
    (this.state.cancelRequested || !this.decision);

  /** Every status change: the state, the EndorsementStatus search attribute, the details. */
  setStatus(status: Status): void {
    this.state.status = status;
    upsertSearchAttributes([{ key: EndorsementStatus, value: status }]);
    // The workflow logger adds workflowId and runId; ids only, no personal data.
    log.info('endorsement status changed', { endorsementId: this.id, status });
    this.progress.show();
  }

  /** The run's end: the SLA watch over and every handler (a cancel's Update) answered. */
  async finish(): Promise<EndorsementState> {
    await this.sla?.ended();
    await condition(allHandlersFinished);
    return { ...this.state };
  }

  private registerHandlers(): void {
    const { state, progress } = this;
    setHandler(endorsementStateQuery, () => ({ ...state }));
    // What the submit activity last reported, shown in the details until the insurer has it. The
    // signal only changes the details (query-side), never the commands.
    setHandler(submissionFailureQuery, () => progress.submissionFailure);
    setHandler(submissionFailingSignal, (f) => {
      if (!state.received) progress.submissionFailing(f);
    });
    // D8: the first decision counts; a duplicate, a late one or one after a cancel changes nothing.
    setHandler(insurerDecisionSignal, (d) => {
      if (this.decision || state.cancelRequested || !isOpenStatus(state.status) || !isDecision(d)) return;
      this.decide(d, (clean) => (clean.source ? `signal: ${clean.source}` : 'signal'));
    });
    // D14: the same first-decision-counts rule, answered synchronously. The validator runs before
    // anything is recorded, so a refused or duplicate decision leaves no trace in the history.
    setHandler(
      insurerDecisionUpdate,
      (d) => {
        this.decide(d, (clean) => clean.source ?? 'decision update');
        return { result: 'accepted', detail: `${d.decision} recorded` };
      },
      {
        validator: (d) => {
          const verdict = decisionVerdict(state, this.decision?.decision ?? null, d);
          if (verdict.result === 'accepted') return;
          const type = verdict.result === 'duplicate' ? DECISION_DUPLICATE : DECISION_REFUSED;
          throw ApplicationFailure.create({ type, message: verdict.detail, nonRetryable: true });
        },
      },
    );
    // D14: the cut-off's bulk statement already moved the row; a late one after a cancel is ignored.
    setHandler(cutOffDeliveredSignal, (d) => {
      if (state.cancelRequested || state.status !== 'ENDORSEMENT_STATUS_PENDING') return;
      this.delivered = true;
      if (isInsurerAssignment(d?.insurer)) this.told = d.insurer;
      progress.fileDelivered(d?.cutOff);
    });
    setHandler(cancelEndorsementSignal, () => {
      if (this.cancellable()) state.cancelRequested = true;
    });
    setHandler(
      cancelEndorsementUpdate,
      async () => {
        state.cancelRequested = true;
        await condition(() => state.status === 'ENDORSEMENT_STATUS_CANCELLED' || state.discarded);
        return { ...state };
      },
      {
        validator: () => {
          if (!this.cancellable()) {
            const what = state.decision ?? state.status;
            throw ApplicationFailure.create({ type: CANCEL_REFUSED, message: `endorsement already ${what}` });
          }
        },
      },
    );
    setHandler(cdFundsHeldSignal, () => void this.funds.wakeUps++);
  }

  private decide(d: InsurerDecision, how: (clean: InsurerDecision) => string): void {
    const clean = cleanDecision(d);
    this.decision = clean;
    this.state.decision = d.decision;
    this.progress.decided(d.decision, how(clean));
  }
}
