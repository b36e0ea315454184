import { expect } from 'chai';
import { addDays } from '../../../domain/dates.js';
import { EndorsementRefused } from '../../../domain/endorsements/endorsement.js';
import { deletionRefund } from '../../../domain/premium.js';
import {
  decideReinstatement,
  lastReinstatementDay,
  type ReinstatementCandidate,
} from '../../../domain/endorsements/reinstatement.js';

/** An employee whose cover (2026-04-01..2027-03-31, ₹3,650 a year) a DELETION ended on 2026-10-15. */
const row = (o: Partial<ReinstatementCandidate> = {}): ReinstatementCandidate => ({
  employee_code: 'E-1',
  policy_found: null,
  policy_id: 'pol_1',
  policy_number: 'POL/1',
  policy_status: 'POLICY_STATUS_ACTIVE',
  start_date: '2026-04-01',
  end_date: '2027-03-31',
  slabs: [
    { sum_insured: '300000.00', annual_premium: '3650.00' },
    { sum_insured: '500000.00', annual_premium: '7300.00' },
  ],
  default_sum_insured: '300000.00',
  insurer_code: 'INS',
  deletion_id: 'end_del',
  deletion_end: '2026-10-15',
  deletion_sum_insured: '500000.00',
  cover_start: '2026-04-01',
  cover_end_before: '2027-03-31',
  employee_active: false,
  open_endorsement_id: null,
  ...o,
});

function refusal(fn: () => unknown): EndorsementRefused {
  try {
    fn();
  } catch (err) {
    if (err instanceof EndorsementRefused) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('domain: reinstatement (D17)', () => {
  it('the window runs from the day after the cover ended to that day plus the window, both included', () => {
    expect(lastReinstatementDay('2026-10-15', 30)).to.equal('2026-11-14');
    expect(lastReinstatementDay('2027-01-31', 30)).to.equal('2027-03-02');
    expect(() => decideReinstatement(row(), {}, '2026-10-16', 30)).to.not.throw();
    expect(() => decideReinstatement(row(), {}, '2026-11-14', 30)).to.not.throw();
    const late = refusal(() => decideReinstatement(row(), {}, '2026-11-15', 30));
    expect(late.code).to.equal('REINSTATEMENT_WINDOW_CLOSED');
    expect(late.detail).to.equal(
      'a REINSTATEMENT is accepted within 30 days after the cover ended: the cover ended on 2026-10-15 ' +
        '(DELETION end_del), the last day it could be reinstated was 2026-11-14',
    );
    expect(refusal(() => decideReinstatement(row(), {}, '2026-10-21', 5)).detail).to.contain(
      'the last day it could be reinstated was 2026-10-20',
    );
  });

  it('restores the days after the cover ended up to its original end, priced as the refund reversed', () => {
    const d = decideReinstatement(row(), {}, '2026-10-20', 30);
    expect(d).to.deep.equal({
      policyId: 'pol_1',
      deletionId: 'end_del',
      sumInsured: '500000.00',
      coverageStartDate: '2026-10-16',
      coverageEndDate: '2027-03-31',
      premiumImpact: '3340.00', // 167 days at ₹7,300 a year over 365 days
      proRataDays: 167,
    });
    // The DELETION's refund for the same member and days, to the paisa, for awkward amounts too.
    for (const annual of ['7300.00', '3333.33', '1.01']) {
      const slabs = [{ sum_insured: '500000.00', annual_premium: annual }];
      for (const end of ['2026-04-01', '2026-10-15', '2027-03-30']) {
        const priced = decideReinstatement(row({ slabs, deletion_end: end }), {}, addDays(end, 1), 400);
        const refund = deletionRefund(
          { startDate: '2026-04-01', endDate: '2027-03-31' },
          annual,
          end,
          '2027-03-31',
        );
        expect(priced.premiumImpact, `${annual} ${end}`).to.equal(refund.replace(/^-/, ''));
      }
    }
  });

  it("restores to the cover's own end when it ended before the policy's", () => {
    const d = decideReinstatement(row({ cover_end_before: '2026-12-31' }), {}, '2026-10-20', 30);
    expect(d).to.include({ coverageEndDate: '2026-12-31', proRataDays: 77 });
  });

  it('refuses with the reason', () => {
    expect(refusal(() => decideReinstatement(undefined, {}, '2026-10-20', 30)).code).to.equal(
      'EMPLOYEE_NOT_FOUND',
    );
    expect(
      refusal(() =>
        decideReinstatement(row({ policy_found: false }), { policyId: 'pol_x' }, '2026-10-20', 30),
      ).code,
    ).to.equal('POLICY_NOT_FOUND');
    const none = row({ policy_id: null, deletion_id: null, deletion_end: null });
    expect(refusal(() => decideReinstatement(none, {}, '2026-10-20', 30))).to.include({
      code: 'NOT_REINSTATABLE',
      detail: 'the employee has no approved DELETION on an active policy to reinstate',
    });
    expect(refusal(() => decideReinstatement(row(), {}, '2026-10-15', 30))).to.include({
      code: 'NOT_REINSTATABLE',
      detail: 'the cover ends on 2026-10-15 (DELETION end_del); it can be reinstated from 2026-10-16',
    });
    expect(
      refusal(() => decideReinstatement(row({ employee_active: true }), {}, '2026-10-20', 30)).code,
    ).to.equal('ALREADY_COVERED');
    expect(refusal(() => decideReinstatement(row({ cover_start: null }), {}, '2026-10-20', 30))).to.include({
      code: 'NOT_REINSTATABLE',
      detail: 'the cover DELETION end_del ended is no longer on the policy',
    });
    const ranToEnd = row({ deletion_end: '2027-03-31' });
    expect(refusal(() => decideReinstatement(ranToEnd, {}, '2027-04-01', 30)).code).to.equal(
      'NOT_REINSTATABLE',
    );
    expect(
      refusal(() => decideReinstatement(row({ open_endorsement_id: 'end_open' }), {}, '2026-10-20', 30)),
    ).to.include({
      code: 'IN_PROGRESS',
      detail: 'endorsement end_open is still open for this employee and policy',
    });
  });
});
