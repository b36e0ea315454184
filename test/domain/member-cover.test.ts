import { expect } from 'chai';
import { coverEndedBy, memberStatusOn } from '../../domain/member-cover.js';

describe('D10: cover ends on its coverage_end_date', () => {
  it('keeps cover through the end date and ends it the day after', () => {
    expect(coverEndedBy('2026-10-15', '2026-10-14')).to.equal(false);
    expect(coverEndedBy('2026-10-15', '2026-10-15')).to.equal(false);
    expect(coverEndedBy('2026-10-15', '2026-10-16')).to.equal(true);
    expect(coverEndedBy('2026-12-31', '2027-01-01')).to.equal(true);
  });

  it('shows an active row whose cover ended as inactive and leaves other statuses alone', () => {
    const row = (status: 'active' | 'inactive' | 'suspended') => ({
      status,
      coverage_end_date: '2026-10-15',
    });
    expect(memberStatusOn(row('active'), '2026-10-15')).to.equal('active');
    expect(memberStatusOn(row('active'), '2026-10-16')).to.equal('inactive');
    expect(memberStatusOn(row('inactive'), '2026-10-01')).to.equal('inactive');
    expect(memberStatusOn(row('suspended'), '2026-10-16')).to.equal('suspended');
  });
});
