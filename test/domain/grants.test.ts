import { expect } from 'chai';
import { clipToPolicy, grantOutcome, type SettledItem } from '../../domain/grants.js';

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
});
