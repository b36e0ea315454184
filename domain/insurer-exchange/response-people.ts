import type { Relationship } from '../enums.js';
import { MAX_MEMBER_UHIDS, type InsurerDecision } from './decisions.js';
import { formatFileDate, type FileTemplate } from './file.js';
import type { ResponsePerson, ResponseRow } from './response-file.js';

/**
 * D14: a response file answers an endorsement row by row, one row per covered person. The rows of
 * one reference make ONE decision: the employee's row (relationship empty or the template's SELF
 * code) decides, else the reference's first row; each dependent's row adds that dependent's UHID
 * to it by id. A dependent's row is matched on relationship and date of birth among the employee's
 * covered dependents (the date may be left out when the relationship alone names one person).
 * A row that matches no one, or more than one, or the same person as an earlier row, or whose
 * decision differs from the deciding row's, adds nothing: the endorsement's decision still applies
 * and that row's outcome says which person could not be matched.
 */

/** A covered dependent of an endorsement's employee (read at ingest; never sent to a workflow). */
export interface CandidateDependent {
  dependent_id: string;
  relationship: Relationship;
  date_of_birth: string;
}

type Match =
  { kind: 'employee' } | { kind: 'dependent'; dependentId: string } | { kind: 'none'; why: string };

type DecidedRow = Extract<ResponseRow, { decision: unknown }>;

const word = (s: string) => s.trim().replace(/\s+/g, ' ').toLowerCase();

/** Who a row answers for. Problems name the relationship and row, never the date's value. */
export function matchPerson(
  template: Pick<FileTemplate, 'relationships' | 'date_format'>,
  person: ResponsePerson | undefined,
  dependents: readonly CandidateDependent[],
): Match {
  const code = person ? word(person.relationship) : '';
  if (!code || code === word(template.relationships.SELF)) return { kind: 'employee' };
  const relationship = (Object.keys(template.relationships) as (keyof FileTemplate['relationships'])[]).find(
    (r) => word(template.relationships[r]) === code,
  );
  if (!relationship || relationship === 'SELF') {
    return { kind: 'none', why: `relationship ${person!.relationship} is not one of the template's codes` };
  }
  const label = template.relationships[relationship];
  const dob = word(person!.date_of_birth);
  const sameDate = (d: CandidateDependent) =>
    !dob || d.date_of_birth === dob || word(formatFileDate(d.date_of_birth, template.date_format)) === dob;
  const found = dependents.filter((d) => d.relationship === relationship && sameDate(d));
  const given = dob ? ' with this date of birth' : '';
  if (found.length === 0) return { kind: 'none', why: `no covered ${label}${given}` };
  if (found.length > 1) return { kind: 'none', why: `ambiguous: ${found.length} covered ${label}${given}` };
  return { kind: 'dependent', dependentId: found[0]!.dependent_id };
}

/** How the rows of a file go to the workflows. */
export interface ResponsePlan {
  /** The deciding rows, each with its decision (dependents' UHIDs attached). */
  sent: { row: DecidedRow; decision: InsurerDecision }[];
  /** A dependent's row that is not sent answers with its deciding row's answer. */
  leadOf: Map<ResponseRow, ResponseRow>;
  /** Why a row's person is left without a UHID (the endorsement's decision applies regardless). */
  problems: Map<ResponseRow, string>;
}

/** Groups a file's rows by reference into decisions (see the module comment for the rule). */
export function planResponseRows(
  template: Pick<FileTemplate, 'relationships' | 'date_format'>,
  rows: readonly ResponseRow[],
  dependentsOf: (endorsementId: string) => readonly CandidateDependent[],
): ResponsePlan {
  const decided = rows.filter((r): r is DecidedRow => 'decision' in r);
  const matches = new Map(
    decided.map((r) => [r, matchPerson(template, r.person, dependentsOf(r.reference))]),
  );
  const leads = new Map<string, DecidedRow>();
  for (const r of decided)
    if (matches.get(r)!.kind === 'employee' && !leads.has(r.reference)) leads.set(r.reference, r);
  for (const r of decided) if (!leads.has(r.reference)) leads.set(r.reference, r);
  const plan: ResponsePlan = { sent: [], leadOf: new Map(), problems: new Map() };
  const decisions = new Map<DecidedRow, InsurerDecision>();
  for (const r of decided) {
    if (matches.get(r)!.kind !== 'employee' && leads.get(r.reference) !== r) continue;
    const decision = { ...r.decision };
    // A dependent's row deciding a reference alone: its ids are the dependent's, not the employee's.
    if (matches.get(r)!.kind !== 'employee') {
      delete decision.uhid;
      delete decision.insurer_member_id;
    }
    decisions.set(r, decision);
    plan.sent.push({ row: r, decision });
  }
  const claimed = new Map<string, number>();
  for (const r of decided) {
    const match = matches.get(r)!;
    if (match.kind === 'employee') continue;
    const lead = leads.get(r.reference)!;
    if (lead !== r) plan.leadOf.set(r, lead);
    const problem = personProblem(r, lead, match, claimed, decisions.get(lead)!);
    if (problem) plan.problems.set(r, problem);
  }
  return plan;
}

/** Attaches a dependent row's UHID to its reference's decision, or says why it cannot be. */
function personProblem(
  row: DecidedRow,
  lead: DecidedRow,
  match: Exclude<Match, { kind: 'employee' }>,
  claimed: Map<string, number>,
  decision: InsurerDecision,
): string | null {
  if (match.kind === 'none') return `person not matched: ${match.why}`;
  if (row.decision.decision !== decision.decision) {
    return `person's decision differs from row ${lead.rowNumber}'s, which decides this reference`;
  }
  const earlier = claimed.get(match.dependentId);
  if (earlier !== undefined) return `person not matched: the same person as row ${earlier}`;
  claimed.set(match.dependentId, row.rowNumber);
  const uhid = row.decision.uhid;
  if (decision.decision !== 'APPROVED' || !uhid) return null;
  if ((decision.members ?? []).length >= MAX_MEMBER_UHIDS) {
    return `more than ${MAX_MEMBER_UHIDS} persons for one reference`;
  }
  decision.members = [...(decision.members ?? []), { dependent_id: match.dependentId, uhid }];
  return null;
}
