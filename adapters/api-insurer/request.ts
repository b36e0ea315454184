import type { ApiAdapterSettings } from '../../domain/insurer-exchange/adapter-settings.js';
import type { InsurerSubmission } from '../../domain/insurer-exchange/submission.js';
import type { RenewalSubmission } from '../../domain/policy-year/renewal-submission.js';

/**
 * What the `api` adapter sends (D14): JSON in the API's snake_case, spellings without their stored
 * prefixes. The endorsement id is the idempotency key: a retried call carries the same key and the
 * same body, so the insurer can answer it as the duplicate it is.
 */
export type ApiCallKind = 'submission' | 'withdrawal';

export interface ApiRequest {
  url: string;
  idempotencyKey: string;
  body: string;
}

export interface SubmissionBody {
  id: string;
  kind: ApiCallKind;
  endorsement: {
    id: string;
    type: string;
    policy_number: string;
    employee_id: string;
    coverage_start_date: string;
    coverage_end_date: string;
    sum_insured: string;
    premium_impact: string;
  };
  /** Submissions only: a withdrawal names the endorsement and carries no personal data. */
  members?: { relationship: string; name: string; date_of_birth: string; gender: string }[];
}

export function submissionBody(s: InsurerSubmission, kind: ApiCallKind): SubmissionBody {
  const body: SubmissionBody = {
    id: s.endorsementId,
    kind,
    endorsement: {
      id: s.endorsementId,
      type: s.type.replace(/^ENDORSEMENT_TYPE_/, ''),
      policy_number: s.policyNumber,
      employee_id: s.employeeCode,
      coverage_start_date: s.coverageStartDate,
      coverage_end_date: s.coverageEndDate,
      sum_insured: s.sumInsured,
      premium_impact: s.premiumImpact,
    },
  };
  if (kind === 'submission') {
    body.members = s.members.map((m) => ({
      relationship: m.relationship,
      name: m.name,
      date_of_birth: m.dateOfBirth,
      gender: m.gender,
    }));
  }
  return body;
}

/** Submissions: `POST <base_url>/endorsements`; withdrawals: `POST <base_url>/endorsements/<id>/withdrawal`. */
export function apiRequest(
  s: InsurerSubmission,
  settings: ApiAdapterSettings,
  kind: ApiCallKind,
): ApiRequest {
  const id = encodeURIComponent(s.endorsementId);
  return kind === 'submission'
    ? {
        url: `${settings.base_url}/endorsements`,
        idempotencyKey: s.endorsementId,
        body: JSON.stringify(submissionBody(s, kind)),
      }
    : {
        url: `${settings.base_url}/endorsements/${id}/withdrawal`,
        idempotencyKey: `${s.endorsementId}:withdrawal`,
        body: JSON.stringify(submissionBody(s, kind)),
      };
}

/**
 * D17: a confirmed renewal, `POST <base_url>/renewals`, keyed by the renewal id. Members by their
 * ids with the insurer (UHID, insurer member id) and our member reference; no names.
 */
export function renewalRequest(r: RenewalSubmission, settings: ApiAdapterSettings): ApiRequest {
  return {
    url: `${settings.base_url}/renewals`,
    idempotencyKey: r.renewalId,
    body: JSON.stringify({
      id: r.renewalId,
      kind: 'renewal',
      policy_number: r.policyNumber,
      term_start: r.termStart,
      term_end: r.termEnd,
      slabs: r.slabs,
      premium: r.premium,
      carried: r.carried.map((m) => ({
        reference: m.reference,
        employee_id: m.employeeCode,
        relationship: m.relationship,
        uhid: m.uhid,
        insurer_member_id: m.insurerMemberId,
        sum_insured: m.sumInsured,
      })),
      dropped: r.dropped.map((m) => ({
        reference: m.reference,
        employee_id: m.employeeCode,
        relationship: m.relationship,
        uhid: m.uhid,
        insurer_member_id: m.insurerMemberId,
        reason: m.reason,
      })),
    }),
  };
}
