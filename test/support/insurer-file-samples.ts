import type { FileEndorsement } from '../../domain/insurer-exchange/file.js';

/**
 * Three endorsements of one ESC policy: an addition whose employee has a spouse, a child and a
 * parent (parents are not covered by ESC), a deletion and a correction.
 */
export const SAMPLE_ENDORSEMENTS: FileEndorsement[] = [
  {
    endorsementId: 'end_addition0000000000001',
    policyNumber: 'GHI/2026/0042',
    coverageType: 'COVERAGE_TYPE_ESC',
    type: 'ENDORSEMENT_TYPE_ADDITION',
    employeeCode: 'E-1001',
    employee: { name: 'Asha Rao', gender: 'FEMALE', dateOfBirth: '1990-03-07' },
    dependents: [
      { name: 'Vikram Rao', relationship: 'SPOUSE', gender: 'MALE', dateOfBirth: '1988-11-23' },
      { name: 'Anya Rao', relationship: 'CHILD', gender: 'FEMALE', dateOfBirth: '2019-01-30' },
      { name: 'Lakshmi Rao', relationship: 'PARENT', gender: 'FEMALE', dateOfBirth: '1960-05-02' },
    ],
    coverageStartDate: '2026-11-02',
    coverageEndDate: '2027-03-31',
    sumInsured: '500000.00',
  },
  {
    endorsementId: 'end_deletion0000000000002',
    policyNumber: 'GHI/2026/0042',
    coverageType: 'COVERAGE_TYPE_ESC',
    type: 'ENDORSEMENT_TYPE_DELETION',
    employeeCode: 'E-0777',
    employee: { name: 'Rahul Mehta', gender: 'MALE', dateOfBirth: '1985-12-01' },
    dependents: [],
    coverageStartDate: '2026-04-01',
    coverageEndDate: '2026-11-15',
    sumInsured: '300000.50',
  },
  {
    endorsementId: 'end_correction00000000003',
    policyNumber: 'GHI/2026/0042',
    coverageType: 'COVERAGE_TYPE_ESC',
    type: 'ENDORSEMENT_TYPE_MODIFICATION',
    employeeCode: 'E-0500',
    employee: { name: 'Sam "Sky" Iyer, Jr.', gender: 'OTHER', dateOfBirth: '1999-02-28' },
    dependents: [],
    coverageStartDate: '2026-04-01',
    coverageEndDate: '2027-03-31',
    sumInsured: '500000.00',
  },
];
