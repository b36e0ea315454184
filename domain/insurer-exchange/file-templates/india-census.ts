import type { FileTemplate } from '../file.js';

/** Shaped like an Indian group-health insurer's endorsement census: DD/MM/YYYY, M/F, Self/Spouse. */
export const indiaCensus: FileTemplate = {
  name: 'india-census',
  sheet_name: 'Endorsement Census',
  date_format: 'DD/MM/YYYY',
  columns: [
    { header: 'Sr No', field: 'serial' },
    { header: 'Policy No', field: 'policy_number' },
    { header: 'Employee Code', field: 'employee_code' },
    { header: 'Member Name', field: 'member_name' },
    { header: 'Relationship', field: 'relationship' },
    { header: 'Gender', field: 'gender' },
    { header: 'DOB (DD/MM/YYYY)', field: 'date_of_birth' },
    { header: 'Sum Insured', field: 'sum_insured' },
    { header: 'Effective Date', field: 'effective_date' },
    { header: 'Endorsement Type', field: 'action' },
    { header: 'Reference No', field: 'reference' },
  ],
  genders: { MALE: 'M', FEMALE: 'F', OTHER: 'O' },
  relationships: {
    SELF: 'Self',
    SPOUSE: 'Spouse',
    CHILD: 'Child',
    PARENT: 'Parent',
    PARENT_IN_LAW: 'Parent-in-law',
  },
  actions: {
    ADDITION: 'Addition',
    DELETION: 'Deletion',
    CORRECTION: 'Correction',
    REINSTATEMENT: 'Reinstatement',
    CANCELLATION: 'Cancellation',
  },
  // The insurer's endorsement status sheet: our reference back, its status, its ids or its reason.
  response: {
    columns: [
      { header: 'Reference No', field: 'reference' },
      { header: 'Status', field: 'decision' },
      { header: 'UHID', field: 'uhid' },
      { header: 'Member ID', field: 'insurer_member_id' },
      { header: 'Rejection Remarks', field: 'rejection_reason' },
      // Which covered person the row answers for, in this template's relationship codes and dates.
      { header: 'Relationship', field: 'relationship' },
      { header: 'DOB (DD/MM/YYYY)', field: 'date_of_birth' },
    ],
    decisions: { APPROVED: 'Endorsed', REJECTED: 'Rejected' },
  },
  // The insurer's monthly member listing ("active roster").
  roster: {
    columns: [
      { header: 'UHID', field: 'uhid' },
      { header: 'Member ID', field: 'insurer_member_id' },
      { header: 'Policy No', field: 'policy_number' },
      { header: 'Employee Code', field: 'employee_code' },
      { header: 'Member Name', field: 'member_name' },
      { header: 'DOB (DD/MM/YYYY)', field: 'date_of_birth' },
      { header: 'Relationship', field: 'relationship' },
      { header: 'Sum Insured', field: 'sum_insured' },
      { header: 'Risk Start Date', field: 'coverage_start_date' },
      { header: 'Risk End Date', field: 'coverage_end_date' },
      { header: 'Member Status', field: 'status' },
    ],
    statuses: { ACTIVE: 'Active', INACTIVE: 'Deleted' },
  },
};
