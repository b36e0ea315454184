import { expect } from 'chai';
import { insurerSubmission, type SubmissionRow } from '../../../domain/insurer-exchange/submission.js';

const row = (o: Partial<SubmissionRow> = {}): SubmissionRow => ({
  endorsementId: 'end_1',
  clientId: 'cli_1',
  policyId: 'pol_1',
  policyNumber: 'P/1',
  insurerId: 'ins_1',
  insurerCode: 'ACME',
  employeeId: 'emp_1',
  employeeCode: 'E-1',
  type: 'ENDORSEMENT_TYPE_ADDITION',
  coverageStartDate: '2026-04-01',
  coverageEndDate: '2027-03-31',
  sumInsured: '300000.00',
  premiumImpact: '3650.00',
  adapter: 'manual',
  adapterSettings: {},
  coverageType: 'COVERAGE_TYPE_ES',
  employee: { name: 'Asha Verma', dateOfBirth: '1988-05-17', gender: 'FEMALE' },
  dependents: [
    { relationship: 'SPOUSE', name: 'Ravi Verma', dateOfBirth: '1987-01-09', gender: 'MALE' },
    { relationship: 'PARENT', name: 'Meena Verma', dateOfBirth: '1960-03-30', gender: 'FEMALE' },
  ],
  ...o,
});

describe('insurer submission', () => {
  it('names the employee as SELF first, then the dependents the coverage type covers', () => {
    const s = insurerSubmission(row());
    expect(s.members).to.deep.equal([
      { relationship: 'SELF', name: 'Asha Verma', dateOfBirth: '1988-05-17', gender: 'FEMALE' },
      { relationship: 'SPOUSE', name: 'Ravi Verma', dateOfBirth: '1987-01-09', gender: 'MALE' },
    ]);
    expect(
      insurerSubmission(row({ coverageType: 'COVERAGE_TYPE_E' })).members.map((m) => m.relationship),
    ).to.deep.equal(['SELF']);
  });

  it('orders the dependents the same way whatever order they are read in: spouse, then children eldest first', () => {
    const dependents: SubmissionRow['dependents'] = [
      { relationship: 'CHILD', name: 'Kabir', dateOfBirth: '2021-06-01', gender: 'MALE' },
      { relationship: 'PARENT', name: 'Meena', dateOfBirth: '1960-03-30', gender: 'FEMALE' },
      { relationship: 'CHILD', name: 'Ira', dateOfBirth: '2019-11-02', gender: 'OTHER' },
      { relationship: 'SPOUSE', name: 'Ravi', dateOfBirth: '1987-01-09', gender: 'MALE' },
    ];
    const names = (list: SubmissionRow['dependents']) =>
      insurerSubmission(row({ coverageType: 'COVERAGE_TYPE_ESC', dependents: list })).members.map(
        (m) => m.name,
      );
    expect(names(dependents)).to.deep.equal(['Asha Verma', 'Ravi', 'Ira', 'Kabir']);
    expect(names([...dependents].reverse())).to.deep.equal(['Asha Verma', 'Ravi', 'Ira', 'Kabir']);
  });

  it("carries the insurer's adapter settings with their defaults", () => {
    const s = insurerSubmission(row());
    expect(s).to.deep.include({ adapter: 'manual', adapterSettings: { sla_days: 14 } });
    expect(s).to.not.have.property('coverageType');
    expect(s).to.not.have.property('dependents');
  });
});
