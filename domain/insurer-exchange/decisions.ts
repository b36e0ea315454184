import type { EndorsementStatus } from '../enums.js';
import { unsafeTextReason, type TextKind } from '../text.js';

/** The UHID an insurer gave one covered dependent of the endorsement (ids only, no personal data). */
export interface MemberUhid {
  dependent_id: string;
  uhid: string;
}

/** An endorsement's family is small; more entries than this is not a real answer. */
export const MAX_MEMBER_UHIDS = 20;

/** D8: what an insurer (adapter, operator command, decisions API) sends about one endorsement. */
export interface InsurerDecision {
  decision: 'APPROVED' | 'REJECTED';
  insurer_member_id?: string;
  uhid?: string;
  rejection_reason?: string;
  /** An approval's per-dependent UHIDs (file insurers' response rows, matched at ingest). */
  members?: MemberUhid[];
  /**
   * Where the decision came from, for operators (the workflow's current details): a response file's
   * name and row, the decisions API, the insurer command. File names and numbers only, never a person's data.
   */
  source?: string;
}

/** D14: an insurer's SLA from submission when its reference data names none. */
export const DEFAULT_SLA_DAYS = 14;

/** Who has an endorsement and since when (D14: the SLA's start and the backlog's attributes). */
export interface InsurerAssignment {
  /** The insurer it is routed to, through its policy. */
  insurerId: string;
  /** When it became SENT_TO_INSURER, by the database's clock (ISO 8601). */
  submittedAt: string;
  /** The insurer's own SLA from its adapter settings (D14); null on a row loaded without one. */
  slaDays: number | null;
}

/**
 * An assignment carried in a signal, checked before a workflow trusts it: a signal from an older
 * release carries none, and a malformed one is read again from the database instead.
 */
export function isInsurerAssignment(a: unknown): a is InsurerAssignment {
  if (typeof a !== 'object' || a === null) return false;
  const { insurerId, submittedAt, slaDays } = a as Record<string, unknown>;
  return (
    typeof insurerId === 'string' &&
    insurerId !== '' &&
    typeof submittedAt === 'string' &&
    Number.isFinite(Date.parse(submittedAt)) &&
    (slaDays === null || (Number.isInteger(slaDays) && (slaDays as number) > 0))
  );
}

/** D14: the answer every insurer path gets back. */
export type DecisionResult = 'accepted' | 'duplicate' | 'refused';
export interface DecisionAnswer {
  result: DecisionResult;
  detail: string;
}

/** Where an endorsement stands when a decision arrives (the workflow's own state). */
export interface DecisionTarget {
  status: EndorsementStatus;
  cancelRequested: boolean;
  discarded: boolean;
}

const OPTIONAL_TEXT = ['insurer_member_id', 'uhid', 'rejection_reason', 'source'] as const;
const MAX_TEXT = { insurer_member_id: 100, uhid: 100, rejection_reason: 1000, source: 200 } as const;

/**
 * The insurer's own text, checked with the text rules (domain/text.ts): its ids as identifiers (they
 * are shown on health cards and `/members` and written into files), its reason as free text that may
 * run over lines (shown to the client). `source` is ours (a file name and row, a route), never the
 * insurer's.
 */
const INSURER_TEXT: Record<'insurer_member_id' | 'uhid' | 'rejection_reason', TextKind> = {
  insurer_member_id: 'identifier',
  uhid: 'identifier',
  rejection_reason: 'multiline',
};

/**
 * Why one of an insurer's text fields breaks the text rules, as `<field> <reason>`, or null. The
 * value is never repeated (it may be personal data in the wrong column).
 */
export function unsafeInsurerText(field: keyof typeof INSURER_TEXT, value: string): string | null {
  const reason = unsafeTextReason(value.trim(), INSURER_TEXT[field]);
  return reason && `${field} ${reason}`;
}

/**
 * Why a decision is malformed, or null: an outcome APPROVED|REJECTED and optional short strings that
 * keep the text rules. The workflow runs it in its Update's validator only, which a replay does not
 * run again, so a stricter rule here changes no recorded history.
 */
export function malformedDecision(d: unknown): string | null {
  if (typeof d !== 'object' || d === null) return 'malformed decision: not an object';
  const fields = d as Record<string, unknown>;
  if (fields.decision !== 'APPROVED' && fields.decision !== 'REJECTED') {
    return 'malformed decision: decision must be APPROVED or REJECTED';
  }
  for (const name of OPTIONAL_TEXT) {
    const value = fields[name];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' || value.length > MAX_TEXT[name]) {
      return `malformed decision: ${name} must be text of at most ${MAX_TEXT[name]} characters`;
    }
    const unsafe = name === 'source' ? null : unsafeInsurerText(name, value);
    if (unsafe) return `malformed decision: ${unsafe}`;
  }
  return malformedMembers(fields.members, fields.decision);
}

/** ids.ts's shape check, inline: this module runs in workflows, which cannot load node:crypto. */
const looksLikeDependentId = (id: string) => id.length <= 64 && id.startsWith('dep_');

const isMemberUhid = (m: unknown): m is MemberUhid => {
  const { dependent_id: id, uhid } = (m ?? {}) as Record<string, unknown>;
  return (
    typeof id === 'string' &&
    looksLikeDependentId(id) &&
    typeof uhid === 'string' &&
    uhid.trim().length > 0 &&
    uhid.length <= MAX_TEXT.uhid
  );
};

function malformedMembers(members: unknown, decision: unknown): string | null {
  if (members === undefined || members === null) return null;
  const why = `malformed decision: members must be at most ${MAX_MEMBER_UHIDS} {dependent_id, uhid} of an approval`;
  if (decision !== 'APPROVED' || !Array.isArray(members) || members.length > MAX_MEMBER_UHIDS) return why;
  if (!members.every(isMemberUhid)) return why;
  for (const m of members) {
    const unsafe = unsafeInsurerText('uhid', m.uhid);
    if (unsafe) return `malformed decision: a member's ${unsafe}`;
  }
  if (new Set(members.map((m) => m.dependent_id)).size !== members.length) return why;
  return null;
}

/** The well-formed per-dependent UHIDs of a decision (the signal's path keeps only these), or none. */
export function cleanMemberUhids(members: unknown): MemberUhid[] | undefined {
  if (!Array.isArray(members)) return undefined;
  const seen = new Set<string>();
  const clean = members
    .filter(isMemberUhid)
    .filter((m) => !seen.has(m.dependent_id) && seen.add(m.dependent_id))
    .slice(0, MAX_MEMBER_UHIDS)
    .map((m) => ({ dependent_id: m.dependent_id, uhid: m.uhid.trim() }));
  return clean.length > 0 ? clean : undefined;
}

export const isDecision = (d: unknown): d is InsurerDecision => malformedDecision(d) === null;

/**
 * D14: how an endorsement answers a decision. The first decision after submission counts; the
 * same outcome again is a duplicate; a different outcome, a decision before submission, after a
 * cancel or after the endorsement closed, and a malformed one are refused with the reason.
 */
export function decisionVerdict(
  target: DecisionTarget,
  taken: InsurerDecision['decision'] | null,
  d: unknown,
): DecisionAnswer {
  const malformed = malformedDecision(d);
  if (malformed) return { result: 'refused', detail: malformed };
  const outcome = (d as InsurerDecision).decision;
  if (target.discarded) return { result: 'refused', detail: 'not found' };
  if (taken) {
    return taken === outcome
      ? { result: 'duplicate', detail: `already ${taken}` }
      : { result: 'refused', detail: `already decided with another outcome: ${taken}` };
  }
  if (target.cancelRequested || target.status === 'ENDORSEMENT_STATUS_CANCELLED') {
    return { result: 'refused', detail: 'endorsement is cancelled' };
  }
  if (target.status === 'ENDORSEMENT_STATUS_PENDING') {
    return { result: 'refused', detail: 'not yet submitted to the insurer' };
  }
  if (target.status !== 'ENDORSEMENT_STATUS_SENT_TO_INSURER') {
    return closedVerdict(target.status, outcome);
  }
  return { result: 'accepted', detail: `${outcome} recorded` };
}

/** A decision for an endorsement that already closed as APPROVED, REJECTED or CANCELLED. */
export function closedVerdict(
  status: EndorsementStatus,
  outcome: InsurerDecision['decision'],
): DecisionAnswer {
  const closedAs = status.replace('ENDORSEMENT_STATUS_', '');
  if (closedAs === outcome) return { result: 'duplicate', detail: `already ${outcome}` };
  if (closedAs === 'CANCELLED') return { result: 'refused', detail: 'endorsement is cancelled' };
  if (closedAs === 'PENDING') return { result: 'refused', detail: 'not yet submitted to the insurer' };
  return { result: 'refused', detail: `already decided with another outcome: ${closedAs}` };
}

/** Where an endorsement stands for an operator's manual decision (the workflow's state). */
export interface ManualDecisionTarget {
  status: EndorsementStatus;
  /** The insurer has it: its submission was accepted, or the file carrying it was delivered. */
  received: boolean;
}

/** An operator's override of `manualDecisionRefusal`, recorded in the audit trail with its reason. */
export interface ManualOverride {
  reason: string;
}

/** The longest reason an override keeps (the audit trail's column holds what the operator wrote). */
export const MAX_OVERRIDE_REASON = 500;

/**
 * D14: an operator records a decision only for what the insurer received: the endorsement is
 * SENT_TO_INSURER and its submission reached the insurer (an `api` insurer's endorsement is
 * SENT_TO_INSURER from the first attempt on, received only once the insurer accepted it). Returns
 * why not (one line, with the status), or null. `forcible`: an override with a reason may record
 * it anyway; a PENDING endorsement never (the workflow takes no decision before submission).
 * Closed endorsements are answered by the workflow (a duplicate of the same outcome, else refused).
 */
export function manualDecisionRefusal(
  target: ManualDecisionTarget,
): { detail: string; forcible: boolean } | null {
  const status = target.status.replace('ENDORSEMENT_STATUS_', '');
  if (target.status === 'ENDORSEMENT_STATUS_PENDING') {
    return { detail: `endorsement is ${status}: not yet sent to the insurer`, forcible: false };
  }
  if (target.status !== 'ENDORSEMENT_STATUS_SENT_TO_INSURER' || target.received) return null;
  return {
    detail: `endorsement is ${status} but the insurer has not received it (its submission has not succeeded; the workflow's details say why)`,
    forcible: true,
  };
}
