import { expect } from 'chai';
import { holdFor, isRefund } from '../../../domain/cd-account/account.js';

describe('CD account rules', () => {
  it('holds a positive premium in paise and nothing for a zero or negative one', () => {
    expect(holdFor('1234.56')).to.equal(123456n);
    expect(holdFor('0.00')).to.equal(0n);
    expect(holdFor('-500.00')).to.equal(0n);
  });

  it('calls only a negative premium a refund (credited; it funds the waiting queue)', () => {
    expect(isRefund('-0.01')).to.equal(true);
    expect(isRefund('0.00')).to.equal(false);
    expect(isRefund('250.00')).to.equal(false);
  });
});
