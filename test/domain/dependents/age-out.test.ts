import { expect } from 'chai';
import { agesOutAtRenewal, type AgeOutCandidate } from '../../../domain/dependents/age-out.js';

const child = (dateOfBirth: string, eligibility: AgeOutCandidate['eligibility'] = {}): AgeOutCandidate => ({
  clientId: 'c',
  policyId: 'p',
  employeeId: 'e',
  dependentId: 'd',
  dateOfBirth,
  memberStart: '2026-04-01',
  policyEnd: '2027-03-31',
  eligibility,
});

describe('a child ageing out at the renewal (D16)', () => {
  it('is over the limit by its age on the policy end date, not today', () => {
    expect(agesOutAtRenewal(child('2001-03-31'))).to.equal(true);
    expect(agesOutAtRenewal(child('2001-04-01'))).to.equal(false);
  });

  it("uses the policy's own limit when it overrides D16's 25", () => {
    expect(agesOutAtRenewal(child('2001-03-01', { childMaxAge: 26 }))).to.equal(false);
    expect(agesOutAtRenewal(child('2005-01-01', { childMaxAge: 21 }))).to.equal(true);
  });
});
