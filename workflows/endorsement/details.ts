import { addDays } from '../../domain/dates.js';
import type { EndorsementStatus } from '../../domain/enums.js';
import type { SubmissionFailure } from '../../domain/insurer-exchange/failures.js';

/**
 * What an operator reads in the Temporal Web UI as an endorsement's current details
 * (`setCurrentDetails`): short Markdown saying what it waits for, since when, when it turns stuck and
 * when the insurer's SLA breaches, the last thing the insurer said and what to do now. Pure (no
 * workflow APIs, no clock): the workflow hands in its own time. Ids and codes only, never names.
 */

/** What an open endorsement is waiting for; each reason says what an operator can do about it. */
export type WaitingReason = 'review' | 'submission' | 'cut-off' | 'decision' | 'recording' | 'funds';

interface Reason {
  /** "Waiting for …". */
  what: (v: EndorsementView) => string;
  /** Commands an operator can run now (cancel is added while one is possible). */
  act: (v: EndorsementView) => string[];
}

/**
 * A decision is offered only once the insurer has the endorsement (D14); before that, recording one
 * is an override the operator must mean: named with its flags, for an insurer that has it by other means.
 */
const decide = (v: EndorsementView) =>
  v.received
    ? [
        `\`npm run -s insurer -- approve ${v.endorsementId} --uhid … --member-id …\``,
        `\`npm run -s insurer -- reject ${v.endorsementId} --reason "…"\``,
      ]
    : [];

const WAITING: Record<WaitingReason, Reason> = {
  review: { what: () => 'review (employee, cover, CD balance)', act: () => [] },
  submission: {
    what: (v) => `${insurerName(v)} to accept the submission${v.adapter ? ` (${v.adapter} adapter)` : ''}`,
    act: (v) => (v.failure ? ['fix the cause above: the submission is retried by itself'] : []),
  },
  'cut-off': {
    what: (v) => `the next cut-off of ${insurerName(v)} (file delivery)`,
    act: (v) => (v.insurerCode ? [`\`npm run -s insurer -- flush ${v.insurerCode}\``] : []),
  },
  decision: {
    what: (v) => `the decision of ${insurerName(v)}`,
    act: (v) =>
      v.received
        ? decide(v)
        : [
            `only if the insurer has it by other means: \`npm run -s insurer -- approve|reject ${v.endorsementId} --force --reason "…"\` (audited)`,
          ],
  },
  recording: {
    what: () => 'the database to record the decision (retried until it answers)',
    act: () => ['look at the failing activity under Pending Activities'],
  },
  funds: {
    what: () => 'funds: the CD balance of the policy to cover the premium',
    act: () => [
      'top up the CD balance of the policy (in Details): `npm run -s admin -- cd:topup <policy_id> AMOUNT --reference REF`',
    ],
  },
};

/** The workflow's view of its endorsement, as the details show it. Times in epoch milliseconds. */
export interface EndorsementView {
  endorsementId: string;
  type: string;
  status: EndorsementStatus;
  stuck: boolean;
  waiting: WaitingReason | null;
  since: number | null;
  stuckAt: number | null;
  slaDueAt: number | null;
  insurerCode: string | null;
  adapter: string | null;
  /** The last thing the insurer said (or what we last sent it), ids and codes only. */
  insurerSaid: string | null;
  /** The insurer has it (submission accepted, or file delivered). */
  received: boolean;
  /** The last failed submit attempt while the insurer does not have it. */
  failure: SubmissionFailure | null;
  /** Leavers' exits overdue and waiting on this endorsement to settle (D16); ids and dates only. */
  exitsWaiting?: readonly { employeeId: string; policyId: string; dateOfLeaving: string }[];
}

const insurerName = (v: EndorsementView) => (v.insurerCode ? `insurer ${v.insurerCode}` : 'the insurer');
const short = (value: string) => value.replace(/^ENDORSEMENT_(STATUS|TYPE)_/, '');

/** An instant as operators read it everywhere: UTC, to the minute. */
export const utc = (ms: number): string =>
  // eslint-disable-next-line no-restricted-globals -- formats a given instant, reads no clock
  `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** A duration in the largest whole unit ("7 d", "36 h", "90 s"). */
export function duration(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'min'],
    [1_000, 's'],
  ];
  for (const [size, unit] of units) if (ms >= size && ms % size === 0) return `${ms / size} ${unit}`;
  return ms >= 1_000 ? `${Math.round(ms / 1_000)} s` : `${ms} ms`;
}

/** The Web UI's Markdown keeps single line breaks inside a paragraph: one paragraph per line. */
export const paragraphs = (...lines: string[]): string => lines.join('\n\n');

/** The Markdown shown as the workflow's current details at `now`. */
export function endorsementDetails(v: EndorsementView, now: number): string {
  const head = `**${short(v.type)} \`${v.endorsementId}\` · ${short(v.status)}**${v.stuck ? ' · **STUCK**' : ''}`;
  if (!v.waiting) {
    const said = v.insurerSaid ? [`**insurer last said:** ${v.insurerSaid}`] : [];
    return paragraphs(head, ...said, '**nothing to wait for**; nothing to do');
  }
  const reason = WAITING[v.waiting];
  const since = v.since !== null ? ` since ${utc(v.since)}` : '';
  const lines = [head, `**waiting for:** ${reason.what(v)}${since}`];
  // D16: a leaver's DELETION cannot be created while this one is open; it is created once it settles.
  for (const exit of v.exitsWaiting ?? []) {
    lines.push(
      `**exit waiting on it:** employee \`${exit.employeeId}\` left on ${exit.dateOfLeaving}, exit overdue since ${addDays(exit.dateOfLeaving, 1)} (policy \`${exit.policyId}\`): the DELETION is created once this endorsement settles`,
    );
  }
  const times = [
    ...(v.stuckAt !== null
      ? [`**${v.stuckAt <= now || v.stuck ? 'stuck since' : 'stuck at'}:** ${utc(v.stuckAt)}`]
      : []),
    ...(v.slaDueAt !== null
      ? [`**SLA ${v.slaDueAt <= now ? 'breached at' : 'breaches at'}:** ${utc(v.slaDueAt)}`]
      : []),
  ];
  if (times.length > 0) lines.push(times.join(' · '));
  const sent = v.status === 'ENDORSEMENT_STATUS_SENT_TO_INSURER';
  if (v.failure && !v.received) {
    lines.push(`**submission failing:** ${v.failure.error} (since attempt ${v.failure.attempt})`);
    lines.push(`**to fix:** ${v.failure.fix}`);
  }
  const unsent = sent && !v.received ? 'nothing: it has not received the endorsement' : 'nothing yet';
  lines.push(`**insurer last said:** ${v.insurerSaid ?? unsent}`);
  // Once the insurer has decided, a cancel is refused: it is not offered.
  const cancel = v.waiting === 'recording' ? [] : [`\`npm run -s ops -- cancel ${v.endorsementId}\``];
  const actions = [...reason.act(v), ...cancel];
  // One command a line, and a blank last line: the Web UI (2.42) sizes the details' frame about one
  // line short of its content, so the last line is cut; it used to be the cancel command.
  lines.push('**operator can:**', ...actions, '&nbsp;');
  return paragraphs(...lines);
}

/** The endorsement's database steps as the history's timeline names them (first argument: its id). */
const STEPS: Record<string, (id: string) => string> = {
  reviewEndorsement: (id) => `review ${id}: employee, cover, CD balance`,
  routeAfterReview: (id) => `route ${id} to its insurer's adapter`,
  reviewHoldAndRoute: (id) => `review ${id}, hold its cost on the CD account, route it to its insurer`,
  markSentToInsurer: (id) => `mark ${id} SENT_TO_INSURER`,
  readEndorsementInsurer: (id) => `read ${id}'s insurer and SLA`,
  recordSlaBreach: (id) => `record the insurer SLA breach of ${id}`,
  rejectEndorsement: (id) => `record ${id} REJECTED`,
  cancelEndorsement: (id) => `record ${id} CANCELLED`,
  applyApproval: (id) => `apply the approval of ${id}: member rows, CD ledger`,
};

export function stepSummary(name: string, args: unknown[]): string | undefined {
  const step = STEPS[name];
  return step && typeof args[0] === 'string' ? step(args[0]) : undefined;
}
