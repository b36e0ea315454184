import { expect } from 'chai';
import {
  additionPremium,
  deletionRefund,
  findSlab,
  formatPaise,
  inclusiveDays,
  modificationPremium,
  paiseText,
  proRata,
  toPaise,
  type Slab,
} from '../../domain/premium.js';

/** Hand calculations of D7's pro-rata rule: actual covered days (inclusive) / actual policy days. */
describe('premium (pro-rata, exact decimals)', () => {
  const leapYear = { startDate: '2028-01-01', endDate: '2028-12-31' }; // 366 days
  const fy = { startDate: '2026-04-01', endDate: '2027-03-31' }; // 365 days

  it('counts days inclusively', () => {
    expect(inclusiveDays('2028-01-01', '2028-12-31')).to.equal(366);
    expect(inclusiveDays('2026-04-01', '2027-03-31')).to.equal(365);
    expect(inclusiveDays('2026-04-01', '2026-04-01')).to.equal(1);
  });

  it('charges ₹1,000 for ₹2,000 a year added half way through the period', () => {
    // 2028-07-02..2028-12-31 is 183 of 366 days.
    expect(additionPremium(leapYear, '2000.00', '2028-07-02', '2028-12-31')).to.equal('1000.00');
  });

  it('charges the whole annual premium for the whole period', () => {
    expect(additionPremium(fy, '3650.00', '2026-04-01', '2027-03-31')).to.equal('3650.00');
  });

  it('charges ₹10 a day on ₹3,650 a year: 182 days from 1 October is ₹1,820', () => {
    expect(additionPremium(fy, '3650.00', '2026-10-01', '2027-03-31')).to.equal('1820.00');
  });

  it('rounds to the paisa, half away from zero', () => {
    // 1000 × 1 / 365 = 2.7397… -> 2.74
    expect(additionPremium(fy, '1000.00', '2026-04-01', '2026-04-01')).to.equal('2.74');
    // 0.01 × 1 / 2 = 0.005 -> 0.01, and -0.005 -> -0.01
    expect(formatPaise(proRata(1n, 1, 2))).to.equal('0.01');
    expect(formatPaise(proRata(-1n, 1, 2))).to.equal('-0.01');
    // 0.01 × 1 / 3 = 0.0033 -> 0.00
    expect(formatPaise(proRata(1n, 1, 3))).to.equal('0.00');
  });

  it('refunds the unused days of a deletion as a negative amount', () => {
    // Cover ends 2026-12-31 instead of 2027-03-31: 90 unused days at ₹10 a day.
    expect(deletionRefund(fy, '3650.00', '2026-12-31', '2027-03-31')).to.equal('-900.00');
    // Ending on the member's own last day refunds nothing.
    expect(deletionRefund(fy, '3650.00', '2027-03-31', '2027-03-31')).to.equal('0.00');
  });

  it('charges or refunds the slab difference of a modification', () => {
    expect(modificationPremium(fy, '3650.00', '7300.00', '2026-10-01', '2027-03-31')).to.equal('1820.00');
    expect(modificationPremium(fy, '7300.00', '3650.00', '2026-10-01', '2027-03-31')).to.equal('-1820.00');
  });

  it('parses and formats amounts exactly, never through floating point', () => {
    expect(toPaise('3650.00')).to.equal(365000n);
    expect(toPaise('0.1')).to.equal(10n);
    expect(toPaise(300000)).to.equal(30000000n);
    expect(toPaise('-12.5')).to.equal(-1250n);
    expect(formatPaise(-1250n)).to.equal('-12.50');
    expect(formatPaise(toPaise('0.1') + toPaise('0.2'))).to.equal('0.30');
    // The running balance's formatter (not remembered) writes the same text.
    for (const p of [0n, 5n, -5n, -1250n, 123456789n]) expect(paiseText(p)).to.equal(formatPaise(p));
    expect(paiseText(-5n)).to.equal('-0.05');
    expect(() => toPaise('1.005')).to.throw(RangeError);
    expect(() => toPaise(1e21)).to.throw(RangeError);
    expect(() => toPaise('abc')).to.throw(RangeError);
  });

  it('finds a slab whatever the decimal spelling of its sum insured', () => {
    const slabs = [
      { sum_insured: '300000.00', annual_premium: '3650.00' },
      { sum_insured: '500000.00', annual_premium: '7300.00' },
    ];
    expect(findSlab(slabs, 500000)?.annual_premium).to.equal('7300.00');
    expect(findSlab(slabs, '300000')?.annual_premium).to.equal('3650.00');
    expect(findSlab(slabs, 400000)).to.equal(undefined);
    expect(findSlab(slabs, 'x')).to.equal(undefined);
  });
});

describe('domain: a slab by its sum insured', () => {
  it('finds the slab equal in paise, in each list as it is now', () => {
    const slabs: Slab[] = [
      { sum_insured: '300000.00', annual_premium: '3650.00' },
      { sum_insured: '500000', annual_premium: '5000.00' },
    ];
    expect(findSlab(slabs, '300000')).to.equal(slabs[0]);
    expect(findSlab(slabs, 500000)).to.equal(slabs[1]);
    expect(findSlab(slabs, '500000.5')).to.equal(undefined);
    expect(findSlab(slabs, 'lots')).to.equal(undefined);
    const replaced: Slab[] = [{ sum_insured: '500000.50', annual_premium: '5000.00' }];
    expect(findSlab(replaced, '500000.5')).to.equal(replaced[0]);
    expect(findSlab(replaced, '300000')).to.equal(undefined);
  });
});
