import { expect } from 'chai';
import {
  checkGrantRequest,
  clipToPolicy,
  GrantRefused,
  grantOutcome,
  type SettledItem,
} from '../../../domain/grants/grant.js';

const approved: SettledItem = { outcome: 'ENDORSEMENT', endorsementStatus: 'ENDORSEMENT_STATUS_APPROVED' };
const rejected: SettledItem = { outcome: 'ENDORSEMENT', endorsementStatus: 'ENDORSEMENT_STATUS_REJECTED' };
const cancelled: SettledItem = { outcome: 'ENDORSEMENT', endorsementStatus: 'ENDORSEMENT_STATUS_CANCELLED' };
const skipped: SettledItem = { outcome: 'SKIPPED', endorsementStatus: null };
const failed: SettledItem = { outcome: 'FAILED', endorsementStatus: null };

describe('grant rules', () => {
  it('clips the grant period to the policy period', () => {
    const policy = { startDate: '2026-04-01', endDate: '2027-03-31' };
    expect(clipToPolicy({ startDate: '2026-01-01', endDate: '2027-12-31' }, policy)).to.deep.equal(policy);
    expect(clipToPolicy({ startDate: '2026-06-01', endDate: '2026-09-30' }, policy)).to.deep.equal({
      startDate: '2026-06-01',
      endDate: '2026-09-30',
    });
  });

  it('derives the final status from the settled items', () => {
    expect(grantOutcome([approved, approved])).to.equal('GRANT_STATUS_COMPLETED');
    expect(grantOutcome([approved, skipped])).to.equal('GRANT_STATUS_COMPLETED');
    expect(grantOutcome([skipped, skipped])).to.equal('GRANT_STATUS_COMPLETED');
    expect(grantOutcome([approved, rejected])).to.equal('GRANT_STATUS_PARTIALLY_COMPLETED');
    expect(grantOutcome([approved, failed, skipped])).to.equal('GRANT_STATUS_PARTIALLY_COMPLETED');
    expect(grantOutcome([rejected, cancelled])).to.equal('GRANT_STATUS_FAILED');
    expect(grantOutcome([skipped, failed])).to.equal('GRANT_STATUS_FAILED');
    expect(grantOutcome([])).to.equal('GRANT_STATUS_FAILED');
  });

  it('refuses a request for an unknown employee, or without a policy overlapping the period (D9)', () => {
    const req = { employeeId: 'emp_a', startDate: '2026-01-01', endDate: '2026-04-02' };
    const code = (fn: () => void) => {
      try {
        fn();
      } catch (err) {
        if (err instanceof GrantRefused) return err.code;
        throw err;
      }
      return 'ACCEPTED';
    };
    const none = { policy_id: null, start_date: null, end_date: null };
    const april = { policy_id: 'pol_a', start_date: '2026-04-01', end_date: '2027-03-31' };
    expect(code(() => checkGrantRequest([], req))).to.equal('EMPLOYEE_NOT_FOUND');
    expect(code(() => checkGrantRequest([none], req))).to.equal('POLICY_NOT_FOUND');
    expect(code(() => checkGrantRequest([april], req))).to.equal('ACCEPTED');
    expect(code(() => checkGrantRequest([none], { ...req, policyId: 'pol_a' }))).to.equal('POLICY_NOT_FOUND');
    // One shared day is not an overlap: the clipped period must be at least a day long.
    expect(
      code(() => checkGrantRequest([april], { ...req, endDate: '2026-04-01', policyId: 'pol_a' })),
    ).to.equal('POLICY_NOT_FOUND');
    expect(code(() => checkGrantRequest([april], { ...req, policyId: 'pol_a' }))).to.equal('ACCEPTED');
  });
});
