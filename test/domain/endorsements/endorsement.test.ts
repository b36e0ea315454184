import { expect } from 'chai';
import {
  decideEndorsement,
  EndorsementRefused,
  reviewRejection,
  type CandidatePolicy,
  type EndorsementRequest,
} from '../../../domain/endorsements/endorsement.js';

const policy = (over: Partial<CandidatePolicy> = {}): CandidatePolicy => ({
  id: 'pol_a',
  policy_number: 'P-1',
  status: 'POLICY_STATUS_ACTIVE',
  start_date: '2026-04-01',
  end_date: '2027-03-31',
  slabs: [
    { sum_insured: '300000', annual_premium: '3650' },
    { sum_insured: '500000', annual_premium: '7300' },
  ],
  default_sum_insured: '300000',
  employee_active: false,
  open_endorsement_id: null,
  member_sum_insured: null,
  member_start: null,
  member_end: null,
  ...over,
});
const covered = (over: Partial<CandidatePolicy> = {}) =>
  policy({
    employee_active: true,
    member_sum_insured: '300000.00',
    member_start: '2026-04-01',
    member_end: '2027-03-31',
    ...over,
  });

const request = (over: Partial<EndorsementRequest> = {}): EndorsementRequest => ({
  employeeId: 'emp_a',
  type: 'ENDORSEMENT_TYPE_ADDITION',
  coverageStartDate: '2026-04-01',
  coverageEndDate: '2027-03-31',
  ...over,
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

describe('endorsement rules (D7)', () => {
  it('prices a full-year addition at the default slab on the one routable policy', () => {
    expect(decideEndorsement([policy()], request())).to.deep.equal({
      policyId: 'pol_a',
      sumInsured: '300000.00',
      premiumImpact: '3650.00',
      proRataDays: 365,
    });
  });

  it('refuses in D7 order: employee, period, slab, open endorsement, cover', () => {
    expect(refusal(() => decideEndorsement([], request())).code).to.equal('EMPLOYEE_NOT_FOUND');
    const outside = refusal(() => decideEndorsement([policy()], request({ coverageEndDate: '2027-04-30' })));
    expect(outside.code).to.equal('INVALID');
    expect(outside.detail).to.contain('2026-04-01 to 2027-03-31');
    const slab = refusal(() => decideEndorsement([policy()], request({ sumInsured: '400000' })));
    expect(slab.detail).to.equal("sum_insured: must be one of the policy's slabs: 300000.00, 500000.00");
    const open = refusal(() =>
      decideEndorsement([covered({ open_endorsement_id: 'end_open' })], request({ policyId: 'pol_a' })),
    );
    expect(open).to.include({ code: 'IN_PROGRESS' });
    expect(open.detail).to.contain('end_open');
    expect(refusal(() => decideEndorsement([covered()], request({ policyId: 'pol_a' }))).code).to.equal(
      'ALREADY_COVERED',
    );
    const deletion = request({ policyId: 'pol_a', type: 'ENDORSEMENT_TYPE_DELETION' });
    expect(refusal(() => decideEndorsement([policy()], deletion)).code).to.equal('NOT_COVERED');
  });

  it('refunds a deletion for the unused days and prices a modification by the slab difference', () => {
    const deletion = decideEndorsement(
      [covered()],
      request({ policyId: 'pol_a', type: 'ENDORSEMENT_TYPE_DELETION', coverageEndDate: '2026-09-30' }),
    );
    expect(deletion.sumInsured).to.equal('300000.00');
    expect(deletion.premiumImpact.startsWith('-')).to.equal(true);
    // The unused days after the last covered day, 2026-10-01..2027-03-31.
    expect(deletion.proRataDays).to.equal(182);
    const modification = decideEndorsement(
      [covered()],
      request({ policyId: 'pol_a', type: 'ENDORSEMENT_TYPE_MODIFICATION', sumInsured: '500000' }),
    );
    expect(modification).to.deep.equal({
      policyId: 'pol_a',
      sumInsured: '500000.00',
      premiumImpact: '3650.00',
      proRataDays: 365,
    });
    const same = refusal(() =>
      decideEndorsement(
        [covered()],
        request({ policyId: 'pol_a', type: 'ENDORSEMENT_TYPE_MODIFICATION', sumInsured: '300000' }),
      ),
    );
    expect(same.detail).to.equal("sum_insured: must differ from the member's current sum insured");
  });

  const subject = {
    type: 'ENDORSEMENT_TYPE_ADDITION' as const,
    premium_impact: '3650.00',
    employee_status: 'ACTIVE',
    cd_balance: '3650.00',
  };

  it('review rejects an inactive employee and a CD balance short of the premium', () => {
    expect(reviewRejection(subject)).to.equal(null);
    expect(reviewRejection({ ...subject, employee_status: 'INACTIVE' })).to.equal(
      'Review: the employee is not active (INACTIVE)',
    );
    expect(reviewRejection({ ...subject, cd_balance: '3649.99' })).to.equal(
      "Review: the policy's CD balance 3649.99 does not cover the premium 3650.00",
    );
    // A refund needs no balance.
    expect(
      reviewRejection({
        ...subject,
        type: 'ENDORSEMENT_TYPE_DELETION',
        premium_impact: '-10.00',
        cd_balance: '0',
      }),
    ).to.equal(null);
  });

  it('leaves the CD balance to the hold (waiting for funds) in runs with CD holds', () => {
    expect(reviewRejection({ ...subject, cd_balance: '0.00' }, true)).to.equal(null);
    expect(reviewRejection({ ...subject, employee_status: 'INACTIVE' }, true)).to.contain('not active');
  });
});
