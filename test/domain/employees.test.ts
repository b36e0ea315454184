import { expect } from 'chai';
import { withCreationLeavingDate, withLeavingDate, type NewEmployee } from '../../domain/employees.js';

const TODAY = '2026-03-15';

describe('domain: employee rules (D6)', () => {
  describe('withLeavingDate', () => {
    it('sets the leaving date to today when an active employee leaves', () => {
      expect(
        withLeavingDate({ status: 'ACTIVE', dateOfLeaving: null }, { status: 'INACTIVE' }, TODAY),
      ).to.deep.equal({ status: 'INACTIVE', dateOfLeaving: TODAY });
    });

    it('clears the leaving date on return to ACTIVE', () => {
      expect(
        withLeavingDate({ status: 'INACTIVE', dateOfLeaving: '2026-01-01' }, { status: 'ACTIVE' }, TODAY),
      ).to.deep.equal({ status: 'ACTIVE', dateOfLeaving: null });
    });

    it('keeps the day the employee left between the inactive statuses, and fills it when missing', () => {
      const left = { status: 'INACTIVE', dateOfLeaving: '2026-01-01' };
      expect(withLeavingDate(left, { status: 'INACTIVE_ONGOING_CLAIM' }, TODAY)).to.deep.equal({
        status: 'INACTIVE_ONGOING_CLAIM',
      });
      expect(
        withLeavingDate({ ...left, dateOfLeaving: null }, { status: 'INACTIVE_ONGOING_CLAIM' }, TODAY),
      ).to.deep.equal({
        status: 'INACTIVE_ONGOING_CLAIM',
        dateOfLeaving: TODAY,
      });
    });

    it('passes the fields present, the email trimmed, and leaves the date alone without a status change', () => {
      expect(
        withLeavingDate(
          { status: 'ACTIVE', dateOfLeaving: null },
          { status: 'ACTIVE', email: '  a@example.com ', name: undefined, department: 'Sales' },
          TODAY,
        ),
      ).to.deep.equal({ status: 'ACTIVE', email: 'a@example.com', department: 'Sales' });
    });
  });

  it('dates an employee created inactive to the day the service learns of it', () => {
    const input = { status: 'INACTIVE' } as NewEmployee;
    expect(withCreationLeavingDate(input, TODAY).dateOfLeaving).to.equal(TODAY);
    expect(withCreationLeavingDate({ ...input, status: 'ACTIVE' }, TODAY).dateOfLeaving).to.equal(undefined);
  });
});
