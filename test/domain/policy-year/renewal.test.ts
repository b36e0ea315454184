import { expect } from 'chai';
import {
  autoConfirmsOn,
  draftRenewal,
  nextTerm,
  opensOn,
  renewalQuoteSchema,
  startOfBusinessDay,
  type RenewalCandidate,
} from '../../../domain/policy-year/renewal.js';
import { renewalFileTable, type RenewalSubmission } from '../../../domain/policy-year/renewal-submission.js';
import { writeCsv } from '../../../infra/spreadsheet-files.js';

const slabs = [
  { sum_insured: '300000.00', annual_premium: '3650.00' },
  { sum_insured: '500000.00', annual_premium: '7300.00' },
];
const current = {
  term: { startDate: '2026-04-01', endDate: '2027-03-31' },
  slabs,
  defaultSumInsured: '300000.00',
};

const member = (o: Partial<RenewalCandidate>): RenewalCandidate => ({
  memberId: 'mem_1',
  employeeId: 'emp_1',
  employeeCode: 'E-1',
  dependentId: null,
  relationship: null,
  dateOfBirth: '1990-01-01',
  employeeStatus: 'ACTIVE',
  sumInsured: '300000.00',
  coverageEndDate: '2027-03-31',
  uhid: 'UHID-1',
  insurerMemberId: 'IM-1',
  ...o,
});

describe('renewal of a policy term (D17)', () => {
  it('renews for a year from the day after the end, leap days included', () => {
    expect(nextTerm(current.term)).to.deep.equal({ startDate: '2027-04-01', endDate: '2028-03-31' });
    expect(nextTerm({ startDate: '2027-03-01', endDate: '2028-02-28' })).to.deep.equal({
      startDate: '2028-02-29',
      endDate: '2029-02-27',
    });
    expect(opensOn('2027-03-31', 90)).to.equal('2026-12-31');
    // RENEWAL_LEAD_DAYS=30: 30 days before the end is the first day, 31 days before is not yet.
    expect(opensOn('2027-03-31', 30)).to.equal('2027-03-01');
    expect(autoConfirmsOn('2027-03-31', 30)).to.equal('2027-03-01');
    expect(new Date(startOfBusinessDay('2027-04-01')).toISOString()).to.equal('2027-03-31T18:30:00.000Z');
  });

  it('carries members, drops an aged-out child and an inactive employee with reasons, and prices both years', () => {
    const draft = draftRenewal({
      current,
      quote: renewalQuoteSchema.parse({
        slabs: [
          { sum_insured: 300000, annual_premium: '4000' },
          { sum_insured: '700000', annual_premium: '9000.50' },
        ],
      }),
      eligibility: {},
      members: [
        member({}),
        member({ memberId: 'mem_2', dependentId: 'dep_1', relationship: 'CHILD', dateOfBirth: '2001-01-15' }),
        member({ memberId: 'mem_3', dependentId: 'dep_2', relationship: 'CHILD', dateOfBirth: '2010-01-15' }),
        member({
          memberId: 'mem_4',
          employeeId: 'emp_2',
          employeeStatus: 'INACTIVE',
          sumInsured: '500000.00',
        }),
        member({ memberId: 'mem_5', employeeId: 'emp_3', sumInsured: '500000.00' }),
        member({ memberId: 'mem_6', employeeId: 'emp_4', coverageEndDate: '2027-02-28' }),
      ],
      cdAvailable: '5000.00',
    });
    expect(draft.terms.term).to.deep.equal({ startDate: '2027-04-01', endDate: '2028-03-31' });
    expect(draft.carried.map((m) => [m.memberId, m.nextSumInsured, m.annualPremiumAfter])).to.deep.equal([
      ['mem_1', '300000.00', '4000.00'],
      ['mem_3', '300000.00', '4000.00'],
      // 5 lakh is not quoted: the quote's default (its first slab) applies.
      ['mem_5', '300000.00', '4000.00'],
    ]);
    expect(draft.dropped.map((m) => [m.memberId, m.reason, m.detail])).to.deep.equal([
      ['mem_2', 'CHILD_AGED_OUT', 'over the child age limit of 25 on 2027-04-01'],
      ['mem_4', 'EMPLOYEE_INACTIVE', 'the employee is INACTIVE'],
      ['mem_6', 'COVER_ENDS_BEFORE_RENEWAL', 'cover ends on 2027-02-28'],
    ]);
    expect(draft.premiumBefore).to.equal('29200.00'); // 4 × 3650 + 2 × 7300
    expect(draft.premiumAfter).to.equal('12000.00');
    expect(draft.cdTopUpNeeded).to.equal('7000.00');
  });

  it('refuses a quote that ends before it starts, or names a default outside its slabs', () => {
    const bad = renewalQuoteSchema.safeParse({
      start_date: '2027-04-01',
      end_date: '2027-03-01',
      slabs: [{ sum_insured: '1', annual_premium: '1' }],
      default_sum_insured: '2',
    });
    expect(bad.success).to.equal(false);
    expect(bad.error!.issues.map((i) => i.path.join('.'))).to.have.members([
      'end_date',
      'default_sum_insured',
    ]);
    expect(renewalQuoteSchema.safeParse({ slabs: [], extra: 1 }).success).to.equal(false);
  });

  it("the renewal file's table, and its cells safe for a spreadsheet once written (D18)", () => {
    const table = renewalFileTable({
      policyNumber: '=HYPERLINK("x")',
      termStart: '2027-04-01',
      termEnd: '2028-03-31',
      carried: [
        {
          reference: 'mem_1',
          employeeCode: '+E1',
          relationship: 'SELF',
          uhid: 'U1',
          insurerMemberId: null,
          sumInsured: '300000.00',
        },
      ],
      dropped: [
        {
          reference: 'mem_2',
          employeeCode: 'E2',
          relationship: 'CHILD',
          uhid: null,
          insurerMemberId: null,
          reason: 'CHILD_AGED_OUT',
        },
      ],
    } as unknown as RenewalSubmission);
    expect(table[1]).to.deep.equal([
      'mem_1',
      '=HYPERLINK("x")',
      'RENEW',
      '+E1',
      'SELF',
      'U1',
      '',
      '300000.00',
      '2027-04-01',
      '2028-03-31',
      '',
    ]);
    expect(table[2]![2]).to.equal('DROP');
    expect(table[2]![10]).to.equal('CHILD_AGED_OUT');
    // Through the one writer, as the file insurer receives it.
    const written = writeCsv(table).toString('utf8');
    expect(written).to.contain(`"'=HYPERLINK(""x"")"`).and.to.contain(`"'+E1"`);
    expect(written).to.not.match(/(^|,)"?[=+@]/m);
  });
});
