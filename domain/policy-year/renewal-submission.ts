import type { InsurerAdapterConfig } from '../insurer-exchange/adapter-settings.js';
import type { FileCell } from '../insurer-exchange/file.js';
import type { DropReason } from './renewal.js';

/** One member of the renewal as the insurer needs it: its ids with the insurer, the next term's slab. */
export interface RenewalSubmissionMember {
  /** Our member row of the current term: the row's reference in files and requests. */
  reference: string;
  employeeCode: string;
  relationship: string;
  uhid: string | null;
  insurerMemberId: string | null;
  sumInsured: string;
}

/**
 * A confirmed renewal as an adapter sends it (D17): the current policy, the next term's dates and
 * slabs, who is carried and who leaves. Built by the submit activity from PostgreSQL; never a
 * Temporal payload, never logged.
 */
export type RenewalSubmission = InsurerAdapterConfig & {
  renewalId: string;
  clientId: string;
  policyId: string;
  policyNumber: string;
  insurerCode: string;
  termStart: string;
  termEnd: string;
  slabs: { sum_insured: string; annual_premium: string }[];
  premium: string;
  carried: RenewalSubmissionMember[];
  dropped: (Omit<RenewalSubmissionMember, 'sumInsured'> & { reason: DropReason })[];
};

/** An absent id is an empty cell; formula leads are neutralised by the one writer (infra/spreadsheet-files.ts). */
const cell = (value: string | null): string => value ?? '';

export const RENEWAL_FILE_HEADER = [
  'Reference',
  'Policy Number',
  'Action',
  'Employee Code',
  'Relationship',
  'UHID',
  'Insurer Member ID',
  'Sum Insured',
  'Term Start',
  'Term End',
  'Reason',
] as const;

/** The renewal file's table (CSV): one row per member carried (RENEW) or leaving (DROP). Pure. */
export function renewalFileTable(s: RenewalSubmission): FileCell[][] {
  const row = (
    m: Omit<RenewalSubmissionMember, 'sumInsured'>,
    action: string,
    sumInsured: string,
    reason: string,
  ): FileCell[] =>
    [
      m.reference,
      s.policyNumber,
      action,
      m.employeeCode,
      m.relationship,
      m.uhid,
      m.insurerMemberId,
      sumInsured,
      s.termStart,
      s.termEnd,
      reason,
    ].map(cell);
  return [
    [...RENEWAL_FILE_HEADER],
    ...s.carried.map((m) => row(m, 'RENEW', m.sumInsured, '')),
    ...s.dropped.map((m) => row(m, 'DROP', '', m.reason)),
  ];
}

/** `renewal-<policy number>-<term start>.csv`, plain characters only. */
export const renewalFileName = (s: RenewalSubmission): string =>
  `renewal-${s.policyNumber.replace(/[^A-Za-z0-9-]+/g, '-')}-${s.termStart}.csv`;
