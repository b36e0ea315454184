import type { FileTemplate } from '../file.js';

/** Our own layout: ISO dates, the stored codes, one column per field. */
export const generic: FileTemplate = {
  name: 'generic',
  sheet_name: 'Endorsements',
  date_format: 'YYYY-MM-DD',
  columns: [
    { header: 'reference', field: 'reference' },
    { header: 'action', field: 'action' },
    { header: 'policy_number', field: 'policy_number' },
    { header: 'employee_code', field: 'employee_code' },
    { header: 'member_name', field: 'member_name' },
    { header: 'relationship', field: 'relationship' },
    { header: 'gender', field: 'gender' },
    { header: 'date_of_birth', field: 'date_of_birth' },
    { header: 'sum_insured', field: 'sum_insured' },
    { header: 'effective_date', field: 'effective_date' },
    { header: 'coverage_end_date', field: 'end_date' },
  ],
  genders: { MALE: 'MALE', FEMALE: 'FEMALE', OTHER: 'OTHER' },
  relationships: {
    SELF: 'SELF',
    SPOUSE: 'SPOUSE',
    CHILD: 'CHILD',
    PARENT: 'PARENT',
    PARENT_IN_LAW: 'PARENT_IN_LAW',
  },
  actions: {
    ADDITION: 'ADDITION',
    DELETION: 'DELETION',
    CORRECTION: 'CORRECTION',
    REINSTATEMENT: 'REINSTATEMENT',
    CANCELLATION: 'CANCELLATION',
  },
  response: {
    columns: [
      { header: 'reference', field: 'reference' },
      { header: 'decision', field: 'decision' },
      { header: 'uhid', field: 'uhid' },
      { header: 'insurer_member_id', field: 'insurer_member_id' },
      { header: 'rejection_reason', field: 'rejection_reason' },
      // Which covered person the row answers for, in this template's relationship codes and dates.
      { header: 'relationship', field: 'relationship' },
      { header: 'date_of_birth', field: 'date_of_birth' },
    ],
    decisions: { APPROVED: 'APPROVED', REJECTED: 'REJECTED' },
  },
  roster: {
    columns: [
      { header: 'uhid', field: 'uhid' },
      { header: 'insurer_member_id', field: 'insurer_member_id' },
      { header: 'policy_number', field: 'policy_number' },
      { header: 'employee_code', field: 'employee_code' },
      { header: 'member_name', field: 'member_name' },
      { header: 'date_of_birth', field: 'date_of_birth' },
      { header: 'relationship', field: 'relationship' },
      { header: 'sum_insured', field: 'sum_insured' },
      { header: 'coverage_start_date', field: 'coverage_start_date' },
      { header: 'coverage_end_date', field: 'coverage_end_date' },
      { header: 'status', field: 'status' },
    ],
    statuses: { ACTIVE: 'ACTIVE', INACTIVE: 'INACTIVE' },
  },
};
