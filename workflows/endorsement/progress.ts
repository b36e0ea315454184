import { setCurrentDetails, setHandler } from '@temporalio/workflow';
import { isCalendarDate } from '../../domain/dates.js';
import { submissionFailure, type SubmissionFailure } from '../../domain/insurer-exchange/failures.js';
import {
  exitWaitingSignal,
  isOpenStatus,
  type EndorsementState,
  type EndorsementWorkflowInput,
  type ExitWaiting,
} from './contract.js';
import { duration, endorsementDetails, type EndorsementView, type WaitingReason } from './details.js';

/** At most this many overdue exits are shown (one a leaver and policy; a signal carries anything). */
const MAX_EXITS_SHOWN = 20;
const ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Workflow time (deterministic: the time of the current workflow task, from history). */
// eslint-disable-next-line no-restricted-globals -- workflow time, not the host clock
const workflowNow = (): number => Date.now();

/**
 * Keeps the endorsement workflow's current details (what the Web UI shows on its page) true: the
 * workflow says what it waits for and what the insurer said; status and the stuck flag are read
 * from its state. Setting details records nothing in the history (it is served by a query), so
 * none of these calls changes the command sequence.
 */
export class EndorsementProgress {
  private readonly view: Omit<EndorsementView, 'status' | 'stuck' | 'received' | 'failure'>;
  /** The last failed submit attempt the activity reported; null once the insurer has it. */
  private failure: SubmissionFailure | null = null;
  /** Overdue exits waiting on this endorsement (D16), by employee and policy. */
  private readonly exits = new Map<string, ExitWaiting>();

  /**
   * Also registers the handlers of the signals that change the details alone (no command depends on
   * them, so registering them here leaves every recorded history's commands as they were).
   */
  constructor(
    input: EndorsementWorkflowInput,
    private readonly state: EndorsementState,
  ) {
    setHandler(exitWaitingSignal, (exit) => this.exitWaiting(exit));
    this.view = {
      endorsementId: input.endorsementId,
      type: input.type,
      waiting: null,
      since: null,
      stuckAt: null,
      slaDueAt: null,
      insurerCode: input.codes?.insurerCode ?? null,
      adapter: null,
      insurerSaid: null,
    };
  }

  /** From now on it waits for `reason`; `stuckAt` is when its stuck timer fires (if one runs). */
  waitingFor(reason: WaitingReason, stuckAt: number | null = null): void {
    Object.assign(this.view, { waiting: reason, since: workflowNow(), stuckAt });
    this.show();
  }

  routed(route: { insurerCode: string; adapter: string } | null): void {
    if (route) Object.assign(this.view, { insurerCode: route.insurerCode, adapter: route.adapter });
  }

  slaDue(at: number): void {
    this.view.slaDueAt = at;
    this.show();
  }

  /** The insurer decided: the decision is recorded next (status, members, ledger). */
  decided(decision: string, how: string): void {
    this.view.waiting = 'recording';
    this.view.since = workflowNow();
    this.view.stuckAt = null;
    this.insurerSaid(`${decision} (${how})`);
  }

  /** A submit attempt failed (the activity's report, re-bounded here: a signal carries anything). */
  submissionFailing(report: Partial<SubmissionFailure> | undefined): void {
    const text = (v: unknown) => (typeof v === 'string' ? v : '');
    const attempt = Number.isInteger(report?.attempt) ? Number(report?.attempt) : 1;
    const failure = submissionFailure(
      text(report?.error),
      undefined,
      text(report?.fix) || undefined,
      attempt,
    );
    if (!failure.error) return;
    this.failure = failure;
    this.show();
  }

  /**
   * The daily cover pass says a leaver's exit is overdue and waits on this endorsement (re-bounded
   * here: a signal carries anything). Shown while the endorsement is open; the same leaver and policy
   * again replaces its line, so the pass may send it every day.
   */
  exitWaiting(report: Partial<ExitWaiting> | undefined): void {
    const { employeeId, policyId, dateOfLeaving } = report ?? {};
    if (typeof employeeId !== 'string' || !ID.test(employeeId)) return;
    if (typeof policyId !== 'string' || !ID.test(policyId)) return;
    if (typeof dateOfLeaving !== 'string' || !isCalendarDate(dateOfLeaving)) return;
    const key = `${employeeId}/${policyId}`;
    if (!this.exits.has(key) && this.exits.size >= MAX_EXITS_SHOWN) return;
    this.exits.set(key, { employeeId, policyId, dateOfLeaving });
    this.show();
  }

  /** What the details show as the submission's last error (null: none, or the insurer has it). */
  get submissionFailure(): SubmissionFailure | null {
    return this.state.received ? null : this.failure;
  }

  insurerSaid(what: string): void {
    this.view.insurerSaid = what;
    this.show();
  }

  /** The cut-off delivered the file carrying it (`cutOff`: its ISO instant). */
  fileDelivered(cutOff: string | undefined): void {
    const at = cutOff ? ` of the cut-off at ${cutOff.slice(0, 16).replace('T', ' ')} UTC` : '';
    this.insurerSaid(`nothing yet: our file${at} was delivered`);
  }

  /** Shows the details again (after a status or stuck-flag change). */
  show(): void {
    const open = isOpenStatus(this.state.status) && !this.state.discarded;
    const view: EndorsementView = {
      ...this.view,
      ...(open ? {} : { waiting: null }),
      status: this.state.status,
      stuck: this.state.stuck,
      received: this.state.received === true,
      failure: this.submissionFailure,
      exitsWaiting: [...this.exits.values()],
    };
    setCurrentDetails(endorsementDetails(view, workflowNow()));
  }

  /** The summary of a timer or activity, in the endorsement's words (the history's timeline). */
  stuckTimer(ms: number, without: string): { summary: string } {
    return { summary: `stuck after ${duration(ms)} without ${without}` };
  }

  /** "submit to insurer CARE (api adapter): end_…" */
  insurerCall(verb: 'submit to' | 'withdraw from'): string {
    const { insurerCode, adapter, endorsementId } = this.view;
    const who = insurerCode ? `insurer ${insurerCode}` : 'the insurer';
    return `${verb} ${who}${adapter ? ` (${adapter} adapter)` : ''}: ${endorsementId}`;
  }
}
